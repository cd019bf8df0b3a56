# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/interval"
require "rackbench/stats/metrics"

class IntervalTest < Minitest::Test
  # [1, 2, 3]: mean 2, s = 1, t(0.975, 2) = 4.3027 -> 2 +/- 2.4842
  def test_t_interval_of_the_mean
    i = Rackbench::Stats::Interval.of([3, 1, 2])
    assert_in_delta(-0.4842, i.low, 1e-4)
    assert_in_delta 4.4842, i.high, 1e-4
    assert_equal 3, i.n
    assert_equal({ "low" => i.low, "high" => i.high, "level" => 0.95, "method" => "student-t" }, i.to_h)
  end

  def test_floor_truncates_and_one_value_has_no_interval
    assert_equal 0.0, Rackbench::Stats::Interval.of([1, 2, 3], floor: 0.0).low
    assert_nil Rackbench::Stats::Interval.of([5])
  end

  def test_metrics_tolerate_missing_and_malformed_samples
    trials = [{ "rps" => 10, "memory" => { "pss_total_mb" => 100, "note" => "x" } }, { "rps" => 20, "memory" => "n/a" },
              { "rps" => 30, "cpu" => { "server_pct" => 50.0 } }]
    keys = Rackbench::Stats::Metrics.for(trials).map(&:key)
    assert_includes keys, "memory.pss_total_mb"
    assert_includes keys, "cpu.server_pct"
    refute_includes keys, "memory.note"
    assert_equal [100.0], Rackbench::Stats::Metrics["memory.pss_total_mb"].values(trials)
    assert_equal "MiB", Rackbench::Stats::Metrics["memory.swap_mb"].unit
  end
end
