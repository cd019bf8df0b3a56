# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/config"
require "rackbench/runner/steady_warmup"
require "rackbench/report/warmup_curve"

class SteadyWarmupTest < Minitest::Test
  Result = Struct.new(:rps, :latency_ms, :errors)

  # A JIT's curve: each window's throughput from the list, the last repeated.
  def engine(curve)
    calls = []
    run = lambda do |seconds|
      calls << seconds
      Result.new(curve[[calls.size - 1, curve.size - 1].min], { "mean" => 1000.0 / curve[calls.size - 1].to_f }, {})
    end
    [run, calls]
  end

  def test_ends_when_two_consecutive_windows_agree_within_the_tolerance
    run, calls = engine([2700, 9100, 14_200, 16_300, 16_500, 16_600])
    seen = []
    out = Rackbench::Runner::SteadyWarmup.new(window: 5, tolerance: 0.05, max: 60, run: run).call { |w| seen << w["value"] }
    assert out.steady
    assert_equal [2700.0, 9100.0, 14_200.0, 16_300.0, 16_500.0], out.windows.map { |w| w["value"] }
    assert_equal seen, out.windows.map { |w| w["value"] }, "each window is yielded as it ends"
    assert_equal [5] * 5, calls
    assert_equal 16_500, out.last.rps
    assert_equal({ "rule" => "steady", "metric" => "rps", "windows" => [2700.0, 9100.0, 14_200.0, 16_300.0, 16_500.0],
                   "seconds" => 25, "steady" => true }, out.to_h)
  end

  def test_stops_unsteady_at_the_cap
    run, calls = engine([100, 200, 400, 800, 1600])
    out = Rackbench::Runner::SteadyWarmup.new(window: 2, tolerance: 0.05, max: 6, run: run).call
    refute out.steady
    assert_equal 3, calls.size
    line = Rackbench::Report::WarmupCurve.line({ "setup" => "puma x1:16 on jruby", "endpoint" => "/hello",
                                                 "repetition" => 1, "warmup" => out.to_h })
    assert_equal "puma x1:16 on jruby /hello (r1): 100 → 200 → 400 req/s, NOT steady after 3 windows (cap) (6 s)", line
  end

  def test_an_open_loop_compares_mean_latency_and_zero_agrees_with_zero
    run, = engine([50, 100, 100])
    out = Rackbench::Runner::SteadyWarmup.new(window: 1, tolerance: 0.05, max: 10, open_loop: true, run: run).call
    assert_equal "latency_mean_ms", out.metric
    assert_equal [20.0, 10.0, 10.0], out.windows.map { |w| w["value"] }
    assert Rackbench::Runner::SteadyWarmup.new(window: 1, tolerance: 0.05, max: 2, run: run).close?(0, 0)
  end

  def test_config_accepts_steady_and_checks_its_settings
    assert_equal "steady", Rackbench::Config.build(warmup: "Steady")[:warmup]
    assert_equal 3.0, Rackbench::Config.build(warmup: "3")[:warmup]
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(warmup: "warm") }
    assert_equal '--warmup must be a number of seconds >= 0 or "steady" (got "warm")', e.message
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config.build(warmup: "steady", warmup_window: 5, warmup_max: 8) }
    assert_match(/--warmup-max \(8.0 s\) must hold two --warmup-window windows/, e.message)
    assert_raises(Rackbench::UsageError) { Rackbench::Config.build(warmup_tolerance: 1.5) }
  end
end
