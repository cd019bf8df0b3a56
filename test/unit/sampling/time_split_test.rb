# frozen_string_literal: true

require "test_helper"
require "rackbench/sampling/time_split"

# Where request time went, from the probe's per-process differences.
class TimeSplitTest < Minitest::Test
  Split = Rackbench::Sampling::TimeSplit

  # Two workers: 100 requests of 50 ms wall and 10 ms thread CPU in all.
  def deltas(**extra)
    { 11 => { "requests" => 60, "wall_s" => 3.0, "cpu_s" => 0.6, "shared" => 0, "process_cpu_s" => 0.9,
              "gc_time_ms" => 30.0, "stale" => false }.merge(extra),
      12 => { "requests" => 40, "wall_s" => 2.0, "cpu_s" => 0.4, "shared" => 0, "process_cpu_s" => 0.6,
              "gc_time_ms" => 20.0, "stale" => false }.merge(extra) }
  end

  def test_per_request_means_and_the_prediction
    s = Split.build(deltas)
    assert_equal 100, s["requests"]
    assert_equal [50.0, 10.0, 0.5, 40.0], s.values_at("wall_ms", "cpu_ms", "gc_ms", "waiting_ms")
    assert_equal 0.2, s["cpu_share"]
    assert_equal 5.0, s["threads_per_process"], "one process's GVL is busy near 1/f = 5 threads"
    assert_equal "thread", s["cpu_method"]
    assert_match(/cannot tell apart/, s["waiting"])
    assert_equal [60, 40], s["workers"].map { |w| w["requests"] }
    refute s.key?("sql_ms"), "no Rails: no SQL figure, not a zero"
    refute s.key?("pool")
  end

  # The request threads' run-queue delay, when every process measured it.
  def test_runnable_time_without_a_cpu_per_request
    assert_equal 12.0, Split.build(deltas("runq_s" => 0.6))["runq_ms"], "1.2 s over 100 requests"
    partial = deltas.tap { |d| d[11]["runq_s"] = 0.6 }
    refute Split.build(partial).key?("runq_ms"), "one process without it: not measured"
  end

  # Requests overlapped on a thread (fibers): the thread clock counts the
  # other fibers too, so the processes' CPU over their requests is taken.
  def test_fibers_take_the_process_cpu
    s = Split.build(deltas("shared" => 5))
    assert_equal "process", s["cpu_method"]
    assert_equal 15.0, s["cpu_ms"]
    assert_equal 10, s["shared_requests"]
  end

  def test_sql_view_and_pool_when_the_app_has_them
    rails = { "sql_ms" => 1550.0, "sql_count" => 150, "view_ms" => 400.0, "view_count" => 50,
              "pool_samples" => 20, "pool_busy_sum" => 100, "pool_waiting_sum" => 10, "pool_waiting_samples" => 5,
              "pool_size" => 5 }
    s = Split.build(deltas(**rails))
    assert_equal 31.0, s["sql_ms"]
    assert_equal 3.0, s["sql_per_request"]
    assert_equal 8.0, s["view_ms"]
    assert_equal({ "size" => 5, "busy_mean" => 5.0, "waiting_mean" => 0.5, "waiting_share" => 0.25, "samples" => 40 }, s["pool"])
  end

  def test_unknown_with_a_reason
    assert_match(/no request/, Split.build({})["unknown"])
    assert_match(/no request/, Split.build(nil)["unknown"])
    assert_match(/no time/, Split.build({ 1 => { "requests" => 3 } })["unknown"])
  end
end
