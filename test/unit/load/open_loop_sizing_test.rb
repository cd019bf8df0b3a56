# frozen_string_literal: true

require "test_helper"
require "rackbench/load/open_loop_sizing"
require "rackbench/load/result"

# Open-loop connections from Little's law on the warm-up's p99.
class OpenLoopSizingTest < Minitest::Test
  S = Rackbench::Load::OpenLoopSizing

  def test_little_law_with_margin_and_floor
    d = S.decide(rate: 4000, latency_ms: 2.5)
    assert_equal [20, 20, false], [d.connections, d.needed, d.added], "4000/s x 2.5 ms x 2"
    assert_equal 8, S.decide(rate: 4000, latency_ms: 0.3).connections, "a fast page gets the floor"
    assert_equal 8, S.decide(rate: 50, latency_ms: 50).connections, "50/s x 50 ms x 2 = 5: floor"
    assert_equal 40, S.decide(rate: 200, latency_ms: 100).connections
    assert_nil S.decide(rate: 100, latency_ms: nil), "no warm-up: the engine's own rule"
    assert_equal "Little's law: rate x warm-up p99 x 2, at least 8", d.to_h["rule"]
  end

  def test_past_the_thread_cap_connections_are_added_and_said
    d = S.decide(rate: 2000, latency_ms: 50)
    assert_equal [200, true], [d.connections, d.added]
    assert_match(/\Athe open loop at 2000 req\/s needs 200 connections \(rate x warm-up p99 50 ms x 2\): 200 opened, above the usual 64/, d.note)
    assert_nil S.decide(rate: 2000, latency_ms: 5).note
    assert_equal 1000, S.decide(rate: 10_000, latency_ms: 1000).connections, "at most wrk-open's maximum"
  end

  def test_the_warmup_figure_is_service_time_in_open_loop_and_latency_in_closed
    open = Rackbench::Load::Result.new(loop: "open", service_ms: { "p99" => 1.5 }, latency_ms: { "p99" => 9.0 })
    closed = Rackbench::Load::Result.new(loop: "closed", latency_ms: { "p99" => 3.0 })
    assert_equal 1.5, S.warmup_p99(open)
    assert_equal 3.0, S.warmup_p99(closed)
    assert_nil S.warmup_p99(nil)
  end
end
