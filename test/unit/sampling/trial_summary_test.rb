# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/sampling/trial_summary"

class TrialSummaryTest < Minitest::Test
  include Rackbench::Sampling
  include Rackbench::System
  MB = 1024 * 1024

  def r(pid, role, cpu, pss: 10 * MB, rss: 30 * MB, uss: 4 * MB, start: 1, threads: 5)
    Reading.new(pid: pid, starttime: start, role: role, cpu_seconds: cpu, threads: threads, rss: rss,
                pss: role == "client" ? nil : pss, uss: role == "client" ? nil : uss)
  end

  # Master idle, two workers at 50% and 25% of a core, client at 100%; over 1 s.
  def samples
    [Sample.new(t: 0.0, readings: [r(1, "master", 1.0), r(2, "worker", 0.0), r(3, "worker", 0.0),
                                   r(9, "client", 0.0, threads: 2)]),
     Sample.new(t: 0.5, readings: [r(1, "master", 1.0), r(2, "worker", 0.25), r(3, "worker", 0.12),
                                   r(9, "client", 0.5)]),
     Sample.new(t: 1.0, readings: [r(1, "master", 1.0), r(2, "worker", 0.5), r(3, "worker", 0.25, pss: 16 * MB),
                                   r(9, "client", 1.0)])]
  end

  def summary(list = samples)
    TrialSummary.new(samples: list, interval: 0.5, cores: 2, sampler_cpu_seconds: 0.002)
  end

  def test_cpu_per_role_from_deltas_over_wall_time
    s = summary
    assert_in_delta 75.0, s.cpu_pct, 1e-9
    assert_in_delta 0.0, s.cpu_pct("master"), 1e-9
    assert_in_delta 75.0, s.cpu_pct("worker"), 1e-9
    assert_in_delta 100.0, s.cpu_pct("client"), 1e-9
    assert_in_delta 0.375, s.machine_share(s.cpu_pct), 1e-9
  end

  def test_processes_appearing_or_reusing_a_pid_count_only_from_their_first_sample
    list = samples
    # Worker 3 restarted between the last two samples: same pid, new starttime, 7 s of CPU from birth.
    list[2].readings[2] = r(3, "worker", 7.0, start: 2)
    list[2].readings << r(4, "worker", 3.0) # a new worker, first seen in the last sample
    s = summary(list)
    assert_in_delta 100.0 * (0.5 + 0.12) / 1.0, s.cpu_pct("worker"), 1e-9
    assert_equal 4, s.workers_seen.size
    assert_equal 1, s.worker_restarts
  end

  def test_memory_sums_pss_over_server_processes
    s = summary
    assert_in_delta (30 + 30 + 36) / 3.0 * MB, s.pss_total, 1
    assert_equal 36 * MB, s.pss_total(:max)
    assert_in_delta (10 * 5 + 16) / 6.0 * MB, s.pss_per_worker, 1
    assert_in_delta 10 * MB, s.pss_master, 1
    assert_in_delta 90 * MB, s.rss_sum, 1
    assert_equal 30 * MB, s.rss_max
    assert_in_delta 12 * MB, s.uss_total, 1
    assert_equal 15, s.threads_max
  end

  def test_to_h
    h = summary.to_h
    assert_equal 3, h.dig("sampler", "samples")
    assert_equal 1.0, h.dig("sampler", "duration_s")
    assert_equal %w[sampler memory cpu processes], h.keys, "no key a trial record holds (duration_s, errors)"
    assert_equal({ "pss_total_mb" => 32.0, "pss_total_max_mb" => 36.0, "pss_per_worker_mb" => 11.0,
                   "pss_master_mb" => 10.0, "rss_sum_mb" => 90.0, "rss_max_mb" => 30.0, "uss_total_mb" => 12.0 },
                 h["memory"])
    assert_equal({ "server_pct" => 75.0, "master_pct" => 0.0, "workers_pct" => 75.0, "client_pct" => 100.0,
                   "server_machine_share" => 0.375, "client_machine_share" => 0.5, "sampler_pct" => 0.2,
                   "cores" => 2 }, h["cpu"])
    assert_equal({ "workers_seen" => 2, "worker_restarts" => 0, "threads_max" => 15, "stopped_pids" => [],
                   "rss_growth" => nil }, h["processes"])
    assert_equal JSON.parse(JSON.generate(h)), h
  end

  def test_series_has_per_pid_cpu_from_the_previous_sample
    rows = summary.series
    assert_equal [0.0, 0.5, 1.0], rows.map { |x| x["t"] }
    assert_nil rows[0]["processes"][0]["cpu_pct"]
    worker = rows[1]["processes"].find { |p| p["pid"] == 2 }
    assert_equal({ "pid" => 2, "role" => "worker", "cpu_pct" => 50.0, "threads" => 5, "rss_bytes" => 30 * MB,
                   "pss_bytes" => 10 * MB, "uss_bytes" => 4 * MB }, worker)
  end

  def test_too_few_samples_or_missing_roles_give_nil_not_zero
    one = summary(samples.first(1)).to_h
    assert_equal 1, one.dig("sampler", "samples")
    assert_nil one["cpu"]["server_pct"]
    assert_equal 30.0, one["memory"]["pss_total_mb"]
    no_master = summary(samples.map { |s| Sample.new(t: s.t, readings: s.readings.reject { |x| x.role == "master" }) })
    assert_nil no_master.cpu_pct("master")
    assert_nil no_master.pss_master
    empty = TrialSummary.new(samples: [], interval: 0.1).to_h
    assert_equal 0, empty.dig("sampler", "samples")
    assert_nil empty["memory"]["pss_total_mb"]
  end
end

# A frozen server and a growing one are named in the summary.
class TrialSummaryAnomalyTest < Minitest::Test
  S = Rackbench::Sampling

  def summary(rss_values, stopped_at: nil)
    samples = rss_values.each_with_index.map do |rss, i|
      r = S::Reading.new(pid: 10, starttime: 1, role: "master", cpu_seconds: i * 0.1, threads: 1, rss: rss,
                         stopped: i == stopped_at)
      S::Sample.new(t: i * 0.2, readings: [r])
    end
    S::TrialSummary.new(samples: samples, interval: 0.2, cores: 2)
  end

  def test_stopped_processes_and_memory_growth
    steady = summary([100, 101, 100, 102, 101, 100, 101, 100].map { |m| m * 1_000_000 })
    assert_empty steady.to_h.dig("processes", "stopped_pids")
    assert_in_delta 0.0, steady.to_h.dig("processes", "rss_growth"), 0.02
    frozen = summary([100] * 8, stopped_at: 3)
    assert_equal [10], frozen.to_h.dig("processes", "stopped_pids")
    growing = summary([100, 110, 130, 160, 200, 250, 310, 380].map { |m| m * 1_000_000 })
    assert_operator growing.to_h.dig("processes", "rss_growth"), :>, 1.5
  end
end
