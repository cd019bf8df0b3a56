# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/runner/verify"
require "rackbench/workload/app"

# The built-in Rails workload (--app rails): seed 000's endpoints in a minimal
# production Rails app, run inside its own bundle (installed by bin/setup).
class RailsAppTest < Minitest::Test
  App = Rackbench::Workload::App

  def read_jsonl(dir, name)
    File.readlines(File.join(dir, name)).map { |l| JSON.parse(l) }
  end

  def test_the_names_arena_and_rails_are_the_built_in_apps
    assert App.resolve("arena").arena?
    rails = App.resolve("rails")
    refute rails.arena?
    assert rails.bundled?
    assert_equal File.join(App::RAILS_APP, "config.ru"), rails.config_ru
    assert_match(/\A7\.2\./, rails.locked_version("railties"))
  end

  def test_runs_under_puma_and_unicorn_without_errors
    out = File.join(tmpdir, "run")
    status, _stdout, err = run_cli("run", "--app", "rails", "-s", "puma x1:2", "-s", "unicorn x2", "-e", "/fibonacci/20",
                                   "-e", "/template-render", "-c", "2", "-d", "1", "--warmup", "0", "-o", out)
    assert_equal 0, status, err
    trials = read_jsonl(out, "trials.jsonl")
    assert_equal ["puma x1:2", "unicorn x2"], trials.map { |t| t["setup"] }.uniq.sort
    assert_equal %w[/fibonacci/20 /template-render], trials.map { |t| t["endpoint"] }.uniq.sort
    trials.each do |t|
      assert_operator t["requests"], :>, 0, "#{t['setup']} #{t['endpoint']}"
      assert_equal 0, t["error_total"], "#{t['setup']} #{t['endpoint']}: #{t['errors']}"
    end
    read_jsonl(out, "setups.jsonl").each do |s|
      assert_equal File.join(App::RAILS_APP, "Gemfile"), s.dig("env", "BUNDLE_GEMFILE")
      assert_includes s["argv"], "exec", "started with bundle exec in the Rails app's bundle"
    end
  end

  def test_answers_as_the_arena_and_verification_checks_its_content
    app = App.resolve("rails")
    setup = Rackbench::Setup.parse("puma x1:2")
    instance = Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma", app: app), setup: setup,
                                               app: app.config_ru, port: Rackbench::Ports.free, dir: tmpdir,
                                               env: app.env, ready_path: "/health").start
    maps = File.read("/proc/#{instance.child.pid}/maps")
    assert_includes maps, File.join(App::RAILS_APP, "vendor", "bundle"),
                    "the server runs on the Rails app's own bundle (bin/setup installs it in vendor/bundle)"
    res = get(instance, "/fibonacci/20")
    assert_equal 200, res.status
    assert_equal 6765, JSON.parse(res.body)["value"]
    assert_equal "rails", res.headers[Rackbench::Runner::Verify::WORKLOAD_HEADER]
    page = get(instance, "/template-render").body
    assert_equal 400, page.scan('<li class="item').size, "one partial per catalogue item"
    assert_equal 400, get(instance, "/fibonacci/x").status
    assert_equal 400, get(instance, "/pause/-1").status
    assert_equal({ "slept" => 0.01 }, JSON.parse(get(instance, "/pause/0.01").body))

    verify = ->(server) { Rackbench::Runner::Verify.new(host: "127.0.0.1", port: instance.port, server: server, arena: false) }
    %w[/hello /health /fibonacci/20 /template-render /pause-and-render/0.01 /server].each { |e| verify.call("puma").call(e) }
    error = assert_raises(Rackbench::SetupFailed) { verify.call("thin").call("/server") }
    assert_match(/names "puma", but the server under test is "thin"/, error.message)
  ensure
    instance&.stop
  end

  private

  def get(instance, path)
    Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, path, timeout: 10)
  end
end
