# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/load"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/process_control/server_instance"
require "rackbench/ports"
require "rackbench/process_control/affinity"
require "rackbench/process_control/registry"
require "rackbench/workload/arena"

# --cpus on real processes: a preforked Puma's master and the workers it
# forks after boot, and wrk while it runs, each read back from
# /proc/PID/status (Cpus_allowed_list); a run stores the sets on its
# trials; bad sets end the command before a server starts.
class AffinityIntegrationTest < Minitest::Test
  A = Rackbench::ProcessControl::Affinity

  def setup
    skip "needs 2 usable CPUs" if A.usable_cpus.size < 2
    @server_cpu, @client_cpu = A.usable_cpus.first(2)
  end

  def teardown
    @instance&.stop
    super
  end

  def test_server_tree_and_load_generator_run_on_their_own_sets
    require_tool!("wrk", Rackbench::Load::Wrk.new.available?)
    @instance = Rackbench::ProcessControl::ServerInstance.new(
      adapter: Rackbench::Server.adapter("puma"), setup: Rackbench::Setup.parse("puma x2:1"),
      app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free, dir: tmpdir,
      ready_path: Rackbench::Workload::Arena::READY_PATH, cpus: [@server_cpu]
    ).start
    pids = @instance.processes.map(&:pid)
    assert_operator pids.size, :>=, 3, "master and two workers"
    pids.each { |pid| assert_equal [@server_cpu], A.of(pid), "server pid #{pid}" }

    engine = Rackbench::Load.engine("wrk")
    engine.cpus = [@client_cpu]
    seen = nil
    run = Thread.new { engine.run(url: @instance.url("/hello"), concurrency: 2, duration: 1, log_path: File.join(tmpdir, "wrk.log")) }
    deadline = Time.now + 5
    until seen || Time.now > deadline
      wrk = Rackbench::ProcessControl::Registry.live.find { |c| File.basename(c.argv.first) == "wrk" }
      # Read once taskset has exec'd wrk: before that the pid is taskset's,
      # still on every CPU (CI read [0, 1] there once).
      seen = wrk && execd_wrk?(wrk.pid) && A.of(wrk.pid)
      sleep 0.02
    end
    result = run.value
    assert_equal [@client_cpu], seen, "wrk's own pid (taskset execs it)"
    assert_operator result.requests, :>, 0
  end

  def test_a_run_stores_the_sets_and_bad_sets_start_nothing
    require_tool!("wrk", Rackbench::Load::Wrk.new.available?)
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "-s", "puma x1:2", "-e", "/hello", "-c", "2", "-d", "1", "--warmup", "0",
                                "--cpus", "server=#{@server_cpu},client=#{@client_cpu}", "-q", "-o", dir)
    assert_equal 0, status, err
    trial = JSON.parse(File.readlines(File.join(dir, "trials.jsonl")).first)
    assert_equal({ "server" => @server_cpu.to_s, "client" => @client_cpu.to_s, "rule" => "given", "shared" => false },
                 trial["cpus"])
    machine = trial["machine"]
    assert_kind_of Float, machine["foreign_pct"], "the CPU neither server, wrk nor rackbench used"
    assert_kind_of Float, machine["steal_pct"], "the hypervisor's share, apart"
    # Foreign is what is left of the machine's CPU (MachineWindow.figures):
    # six figures rounded to 0.1 each, hence the delta.
    client = [trial.dig("cpu", "client_pct"), machine["client_reaped_pct"]].max
    assert_in_delta machine["cpu_pct"] - machine["steal_pct"] - machine["interrupts_pct"] -
                    trial.dig("cpu", "server_pct") - client - machine["rackbench_pct"],
                    machine["foreign_pct"], 0.4 unless machine["foreign_pct"].zero?

    [["server=0,client=4096", /does not have/], ["server=0-1,client=1", /overlap/]].each do |cpus, why|
      out_dir = File.join(tmpdir, "bad")
      status, _out, err = run_cli("run", "-s", "puma x1:2", "-e", "/hello", "--cpus", cpus, "-q", "-o", out_dir)
      assert_equal 2, status
      assert_equal 1, err.lines.size, err
      assert_match(/\AError: --cpus .*#{why}/, err)
      refute File.exist?(out_dir), "no run directory, no server"
    end
  end

  def execd_wrk?(pid)
    File.basename(File.readlink("/proc/#{pid}/exe")) == "wrk"
  rescue SystemCallError
    false
  end
end
