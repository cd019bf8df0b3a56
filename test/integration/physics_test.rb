# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/verdict"

# Physics checks: they guard the pipeline against silent measurement bugs by
# comparing measured figures with what the setup must produce.
class PhysicsTest < Minitest::Test
  def run_plan(*args)
    dir = @dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", *args, "--warmup", "1", "-q", "-o", dir)
    assert_equal 0, status, err
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  # /pause/S with T threads in all, at concurrency c: min(c, T) / S req/s.
  # Measured at c = T: with c > T a closed-loop trial this short loses the
  # requests still queued when wrk stops (up to c/2 of them), a bias of
  # several percent that says nothing about the server.
  # Puma is measured in single mode: in cluster mode a keep-alive
  # connection stays with the worker that accepted it, and 4 connections
  # over 2 workers of 2 threads often split 3/1 (30 req/s, not 40): a real
  # Puma behaviour near c = T, not a measurement error.
  def test_pause_throughput_is_threads_over_pause_time
    puma = run_plan("-s", "puma x1:4", "-e", "/pause/0.1", "-c", "4", "-d", "3").first
    unicorn = run_plan("-s", "unicorn x2", "-e", "/pause/0.1", "-c", "2", "-d", "3").first
    # The law is a ceiling: each request's turnaround and a stall of the
    # machine (steal the guest cannot see) only take from it, so the bands
    # are 0.85-1.02 of it (and latency at least the pause).
    assert_includes 34.0..40.8, puma["rps"], "puma: min(4, 1x4) / 0.1 s"
    assert_includes 17.0..20.4, unicorn["rps"], "unicorn: min(2, 2) / 0.1 s"
    assert_includes 99.0..115.0, puma.dig("latency_ms", "p50"), "no queueing at c = T: latency is the pause"
  end

  # Copy-on-write pages are shared after preload: PSS sums below RSS sums.
  def test_preloaded_puma_footprint_is_below_summed_rss
    trial = run_plan("-s", "puma x2:2", "-e", "/hello", "-c", "4", "-d", "1").first
    mem = trial.fetch("memory")
    assert_operator mem["pss_total_mb"], :>, 0
    assert_operator mem["pss_per_worker_mb"], :>, 0
    assert_operator mem["pss_total_mb"], :<, mem["rss_sum_mb"]
    assert_equal 2, trial.dig("processes", "workers_seen")
  end

  # One single-threaded process kept busy by CPU work uses one core.
  def test_saturated_single_worker_uses_one_core
    trial = run_plan("-s", "puma x1:1", "-e", "/fibonacci/25", "-c", "2", "-d", "2").first
    # At most one core; at least 80% of what it could have had (a core, less
    # what the hypervisor and others took of the machine meanwhile).
    room = Rackbench::Stats::Verdict::Measures.new(trial).room
    assert_includes (0.8 * [100.0, room].min)..120.0, trial.dig("cpu", "server_pct"), "room #{room.round(1)}: #{trial['machine']}"
    # The load generator was found and sampled: wrk's process is in the
    # sampler's series (role "client") in most samples, and its CPU is a
    # number, less than half a core. Not "more than 0": wrk's 2 connections
    # on a CPU-bound server (~230 req/s) cost it about 5 ms of CPU a second,
    # under one 10 ms clock tick of /proc's counters in a 2 s trial, so 0.0
    # is a true reading (two full runs of five read it so, one here). With
    # SampledProcesses.client_pids returning [] the series check fails.
    samples = File.readlines(File.join(@dir, "samples.jsonl")).map { |l| JSON.parse(l) }
    with_client = samples.count { |s| s["processes"].any? { |r| r["role"] == "client" } }
    assert_operator with_client, :>=, samples.size / 2, "samples naming the load generator (#{samples.size} samples)"
    assert_kind_of Float, trial.dig("cpu", "client_pct"), "the load generator's CPU: #{trial['cpu']}"
    assert_operator trial.dig("cpu", "client_pct"), :<=, 50.0, "client CPU %: #{trial['cpu']}"
  end
end
