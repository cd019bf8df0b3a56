# frozen_string_literal: true

require "test_helper"
require "json"
require "bundler"
require "fileutils"
require_relative "../support/fixture_bundle"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/app"
require "rackbench/workload/probe_wrapper"
require "rackbench/sampling/probe_files"
require "rackbench/sampling/noise"
require "rackbench/process_control/server_instance"
require "rackbench/process_control/http_probe"

# --probe: a user's app behind rackbench's in-process probe, unedited. The
# fixture app spends 10 ms of its thread's CPU and sleeps 40 ms per request.
class ProbeTest < Minitest::Test
  include Rackbench::FixtureBundle
  APP = File.expand_path("../fixtures/apps/cpu_and_sleep", __dir__)
  RACK2 = File.expand_path("../fixtures/apps/rack2/Gemfile", __dir__)

  def run_probe(*args)
    quiet_measurement do
      require_tool!("wrk")
      dir = File.join(tmpdir, "run")
      status, out, err = run_cli("run", "--probe", *args, "-q", "-o", dir)
      assert_equal 0, status, err
      [File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }, out]
    end
  end

  # At c = 1 nothing waits for anything else: the probe measures what the app does.
  def test_measures_cpu_and_wall_per_request_and_predicts_threads
    trials, = run_probe("--app", APP, "-s", "puma x1:1", "-e", "/", "-c", "1", "-d", "2", "--warmup", "1")
    split = trials.first.fetch("split")
    assert_operator split["requests"], :>=, 20, split.inspect
    assert_in_delta 10.0, split["cpu_ms"], 1.5, split.inspect
    assert_equal "thread", split["cpu_method"]
    refute split.key?("sql_ms"), "no Active Record: no SQL figure"
    refute split.key?("pool"), "no Active Record: no pool figure (absent, not zero)"
    # Other processes' CPU stretches wall time (the spin is preempted); only then is a miss not the probe's.
    if !(49.5..57.0).cover?(split["wall_ms"]) && Rackbench::Sampling::Noise.foreign?(trials.first)
      skip "wall time needs a quiet machine (other processes: #{trials.first.dig('machine', 'foreign_pct')}%): #{split}"
    end
    # 10 ms of spin and 40 ms of sleep: 50.3-50.7 measured; a preempted spin
    # (the hypervisor's steal, which the check above cannot see) only adds.
    assert_includes 49.5..57.0, split["wall_ms"], split.inspect
    assert_in_delta 5.0, split["threads_per_process"], 0.75, "1 / f with f = 10 / 50"
  end

  # Every server rackbench boots serves the wrapped app, in the app's own
  # directory (its config.ru reads a file by a relative path), and the
  # probe in its worker counts what it served.
  def test_every_server_serves_the_wrapped_app
    app = Rackbench::Workload::App.resolve(APP)
    Rackbench::Server::ADAPTERS.each_key do |key|
      adapter = Rackbench::Server.adapter(key, app: nil)
      next unless adapter.available?

      served = serve_wrapped(app, key)
      assert_match(/read from the working directory/, served[:body], "#{key} ran the app in its own directory")
      assert_operator served[:requests], :>=, 3, "#{key}: #{served}"
      assert_in_delta 10.0, served[:cpu_ms], 1.5, "#{key}: #{served}"
    end
  end

  # Rack 2's Rack::Builder.parse_file returns [app, options]: the wrapper runs the app.
  def test_an_app_on_rack_2
    dir = File.join(tmpdir, "rack2app")
    FileUtils.cp_r(APP, dir)
    FileUtils.cp(RACK2, File.join(dir, "Gemfile"))
    install_fixture_bundle(dir, "bundle install --local failed for the Rack 2 fixture (bin/setup puts rack 2.2 in rackbench's bundle)")
    served = serve_wrapped(Rackbench::Workload::App.resolve(dir), "puma")
    assert_match(/rack 2\.2\./, served[:body])
    assert_operator served[:requests], :>=, 3
  end

  # The built-in Rails app: view time from its render events; its
  # /template-render reads no database (0 queries a request), while seed
  # 001's /articles reads 10 rows from SQLite in one query (Active Record's
  # sql.active_record events), and the pool is sampled.
  def test_rails_view_and_sql_time
    trials, = run_probe("--app", "rails", "-s", "puma x1:2", "-e", "/template-render", "-e", "/articles", "-c", "2",
                        "-d", "1", "--warmup", "1")
    by = trials.to_h { |t| [t["endpoint"], t.fetch("split")] }
    render = by.fetch("/template-render")
    assert_operator render["view_ms"], :>, 0, render.inspect
    assert_operator render["view_per_request"], :>=, 0.9
    assert_operator render["cpu_ms"], :>, 0
    assert_equal 0.0, render["sql_per_request"].to_f, "no query on /template-render: #{render}"
    articles = by.fetch("/articles")
    assert_operator articles["sql_ms"], :>, 0, articles.inspect
    assert_in_delta 1.0, articles["sql_per_request"], 0.05, "one query a request (Article.order(:id))"
    assert_operator articles["view_ms"], :>, 0
    assert_equal 5, articles.dig("pool", "size"), "database.yml's pool: RAILS_MAX_THREADS or 5"
    assert_operator articles.dig("pool", "samples"), :>, 0
    assert(trials.all? { |t| t["verified"] }, "verified: /articles has seed 001's 10 rows")
  end

  # An app that raises while loading gives the same line with the probe as without.
  def test_an_app_that_cannot_load_fails_with_its_own_error_line
    raising = File.expand_path("../fixtures/apps/raising", __dir__)
    lines = %w[--probe --no-probe].map do |flag|
      status, out, err = run_cli("run", "--app", raising, flag, "-s", "puma x1:1", "-e", "/", "-c", "1", "-d", "1",
                                 "--warmup", "0", "-o", File.join(tmpdir, "run"))
      assert_equal 1, status, err
      (out + err)[/FAILED .*Unable to load application: [^;]*/]
    end
    assert_match(/ArgumentError: database configuration does not specify adapter/, lines.first)
    assert_equal lines.last, lines.first
  end

  def test_probe_with_url_is_refused_before_anything_runs
    status, _out, err = run_cli("run", "--probe", "--url", "http://127.0.0.1:9/", "-o", File.join(tmpdir, "run"))
    assert_equal 2, status
    assert_equal 1, err.lines.size, err
    assert_match(/--probe runs inside a server rackbench boots/, err)
  end

  private

  # Boots KEY's smallest setup on app behind the wrapper, asks / three
  # times, then reads what the probe wrote: {body:, requests:, cpu_ms:}.
  def serve_wrapped(app, key)
    wrapped = Rackbench::Workload::ProbeWrapper.write(app, tmpdir)
    probe_dir = File.join(tmpdir, "probe")
    FileUtils.mkdir_p(probe_dir)
    klass = Rackbench::Server::ADAPTERS.fetch(key)
    setup = Rackbench::Setup.parse(klass.only_one_process? ? key : "#{key} x1")
    instance = Rackbench::ProcessControl::ServerInstance.new(
      adapter: Rackbench::Server.adapter(key, app: wrapped), setup: setup, app: wrapped.config_ru,
      port: Rackbench::Ports.free, dir: File.join(tmpdir, key), env: wrapped.env.merge("RACKBENCH_PROBE_DIR" => probe_dir),
      boot_timeout: 60
    ).start
    Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/", timeout: 10) # first-request costs, uncounted
    before = Rackbench::Sampling::ProbeFiles.new(probe_dir).read
    bodies = Array.new(3) { Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/", timeout: 10).body }
    after = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    deltas = Rackbench::Sampling::ProbeFiles.deltas(before, Rackbench::Sampling::ProbeFiles.new(probe_dir).read_fresh(after), after)
    requests = deltas.values.sum { |d| d["requests"].to_i }
    cpu = deltas.values.sum { |d| d["cpu_s"].to_f }
    { body: bodies.last.to_s, requests: requests, cpu_ms: requests.positive? ? 1000.0 * cpu / requests : nil }
  ensure
    instance&.stop
  end
end
