# frozen_string_literal: true

require "test_helper"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/process_control/server_instance"
require "rackbench/process_control/layout"
require "rackbench/ports"
require "rackbench/workload/arena"
require "rackbench/workload/app"

# --aslr off on real processes: every process of a booted server, the
# master and the workers it forks, runs with ADDR_NO_RANDOMIZE in
# /proc/PID/personality; through `bundle exec` in the Rails workload too (a
# fresh Ruby started by Bundler keeps it); without it, none does.
class LayoutIntegrationTest < Minitest::Test
  ADDR_NO_RANDOMIZE = 0x0040000

  def teardown
    @instance&.stop
    super
  end

  def boot(label, app:, fixed:, env: {})
    setup = Rackbench::Setup.parse(label)
    @instance&.stop
    @instance = Rackbench::ProcessControl::ServerInstance.new(
      adapter: Rackbench::Server.adapter(setup.server, app: app), setup: setup, app: app.config_ru,
      port: Rackbench::Ports.free, dir: File.join(tmpdir, "#{setup.server}-#{fixed}"), env: env,
      ready_path: Rackbench::Workload::Arena::READY_PATH, fixed_layout: fixed
    ).start
  end

  def personalities
    @instance.processes.to_h { |e| [e.pid, File.read("/proc/#{e.pid}/personality").to_i(16)] }
  end

  def test_every_process_of_a_server_runs_without_randomisation_and_only_when_asked
    assert_nil Rackbench::ProcessControl::Layout.problem, "setarch works on this machine"
    boot("puma x2:1", app: Rackbench::Workload::App.arena, fixed: true)
    fixed = personalities
    assert_operator fixed.size, :>=, 3, "master and two workers"
    fixed.each { |pid, p| assert_equal ADDR_NO_RANDOMIZE, p & ADDR_NO_RANDOMIZE, "pid #{pid}: #{p.to_s(16)}" }
    refute_equal "setarch", File.read("/proc/#{@instance.child.pid}/comm").strip, "setarch exec'd the server in its own pid"

    boot("puma x2:1", app: Rackbench::Workload::App.arena, fixed: false)
    personalities.each { |pid, p| assert_equal 0, p & ADDR_NO_RANDOMIZE, "pid #{pid}: #{p.to_s(16)}" }
  end

  def test_a_bundled_app_keeps_it_through_bundle_exec
    app = Rackbench::Workload::App.resolve("rails")
    boot("unicorn x2", app: app, fixed: true, env: app.env)
    found = personalities
    assert_operator found.size, :>=, 3, "master and two workers"
    found.each { |pid, p| assert_equal ADDR_NO_RANDOMIZE, p & ADDR_NO_RANDOMIZE, "pid #{pid}: #{p.to_s(16)}" }
  end
end
