# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/sampling/balance"
require "rackbench/sampling/probe_files"
require "rackbench/sampling/trial_summary"
require "rackbench/workload/arena"
require_relative "../../../apps/arena/probe"

# Who did the work: per-worker CPU from process samples, requests and GC from
# the arena's probe files, and the probe itself.
class BalanceTest < Minitest::Test
  Reading = Rackbench::Sampling::Reading
  Sample = Rackbench::Sampling::Sample

  def summary
    samples = [0.0, 1.0, 2.0].each_with_index.map do |t, i|
      Sample.new(t: t, readings: [Reading.new(pid: 10, starttime: 1, role: "worker", cpu_seconds: 0.9 * i, threads: 5),
                                  Reading.new(pid: 11, starttime: 1, role: "worker", cpu_seconds: 0.3 * i, threads: 5),
                                  Reading.new(pid: 9, starttime: 1, role: "master", cpu_seconds: 0.0, threads: 2)])
    end
    Rackbench::Sampling::TrialSummary.new(samples: samples, interval: 1.0, cores: 2)
  end

  def test_cpu_and_requests_per_worker_with_the_spread
    probe = { 10 => { "requests" => 300, "gc_count" => 4, "gc_time_ms" => 12.0 }, 11 => { "requests" => 100, "gc_count" => 1, "gc_time_ms" => 3.0 } }
    b = Rackbench::Sampling::Balance.build(summary, probe: probe)
    assert_equal [90.0, 30.0], b["workers"].map { |w| w["cpu_pct"] }
    assert_equal [0.75, 0.25], b["workers"].map { |w| w["requests_share"] }
    assert_equal 1.5, b["spread"], "3/1 over two workers"
    assert_equal [4, 1], b["workers"].map { |w| w["gc_count"] }
    assert_equal "probe", b["requests_source"]
    assert_equal 90.0, b["busiest_cpu_pct"]
  end

  def test_requests_from_server_stats_without_a_probe
    rows = [{ "workers" => [{ "pid" => 10, "requests" => 5 }, { "pid" => 11, "requests" => 5 }] },
            { "workers" => [{ "pid" => 10, "requests" => 55 }, { "pid" => 11, "requests" => 45 }] }]
    b = Rackbench::Sampling::Balance.build(summary, server_rows: rows)
    assert_equal [50, 40], b["workers"].map { |w| w["requests"] }
    assert_equal "server stats", b["requests_source"]
  end

  def test_probe_writes_per_process_files_that_give_deltas
    Dir.mktmpdir do |dir|
      # The variable rackbench sets (lib) is the one the app's probe reads (apps/arena).
      assert_equal Rackbench::Workload::Arena::PROBE_DIR_VAR, Rackbench::Workload::Arena::Probe::ENV_KEY
      app = Rackbench::Workload::Arena::Probe.wrap(->(_env) { [200, {}, ["ok"]] }, { Rackbench::Workload::Arena::PROBE_DIR_VAR => dir })
      3.times { app.call({}) }
      files = Rackbench::Sampling::ProbeFiles.new(dir)
      first = files.read_fresh(Process.clock_gettime(Process::CLOCK_MONOTONIC))
      assert_equal 3, first.fetch(Process.pid)["requests"]
      2.times { app.call({}) }
      GC.start
      after = Process.clock_gettime(Process::CLOCK_MONOTONIC)
      last = files.read_fresh(after)
      delta = Rackbench::Sampling::ProbeFiles.deltas(first, last, after).fetch(Process.pid)
      assert_equal 2, delta["requests"]
      assert_operator delta["gc_count"], :>=, 1
      refute delta["stale"]
    ensure
      app&.close
    end
  end

  def test_probe_is_off_without_its_variable
    app = ->(_env) { [200, {}, ["ok"]] }
    assert_same app, Rackbench::Workload::Arena::Probe.wrap(app, {})
  end
end
