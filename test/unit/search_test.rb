# frozen_string_literal: true

require "test_helper"
require "rackbench/search/knee"
require "rackbench/search/slo"

class KneeTest < Minitest::Test
  def test_integer_levels_double_then_bisect_to_the_boundary
    knee = Rackbench::Search::Knee.new(start: 1, min: 1, max: 10_000, integer: true, max_steps: 12, precision: 0)
    r = knee.find { |c| [c <= 37, nil] }
    assert_equal 37, r.pass
    assert_equal 38, r.fail
    assert_equal [1, 2, 4, 8, 16, 32, 64, 48, 40, 36, 38, 37], r.steps.map(&:level)
  end

  def test_stops_at_max_steps_with_the_bracket_found_so_far
    knee = Rackbench::Search::Knee.new(start: 1, min: 1, max: 10_000, integer: true, max_steps: 10, precision: 0)
    r = knee.find { |c| [c <= 37, nil] }
    assert_equal 10, r.steps.size
    assert_equal [36, 40], [r.pass, r.fail]
  end

  def test_rates_stop_within_precision_and_can_search_down
    knee = Rackbench::Search::Knee.new(start: 400.0, min: 1.0, max: 100_000.0, integer: false)
    r = knee.find { |rate| [rate <= 190, nil] }
    assert_operator r.pass, :<=, 190
    assert_operator r.fail, :<=, r.pass * 1.1
    assert_equal [400.0, 200.0, 100.0], r.steps.first(3).map(&:level)
  end

  def test_nothing_passes
    knee = Rackbench::Search::Knee.new(start: 4, min: 1, max: 100, integer: true)
    r = knee.find { [false, nil] }
    assert_nil r.pass
    assert_equal 1, r.fail
  end
end

class SloTest < Minitest::Test
  SLO = Rackbench::Search::Slo.new(p99_ms: 500, error_rate: 0.001, health: true)

  def record(p99: 100, requests: 1000, errors: 0, **extra)
    { "latency_ms" => { "p99" => p99 }, "requests" => requests, "error_total" => errors }.merge(extra.transform_keys(&:to_s))
  end

  def test_passes_and_fails_with_reasons
    assert SLO.judge(record).pass
    assert_match(/p99 2.10 s over 500 ms/, SLO.judge(record(p99: 2100)).reason)
    assert_match(/errors 0.50% over 0.1%/, SLO.judge(record(errors: 5, requests: 995)).reason)
    assert_match(/invalid trial: rate/, SLO.judge(record(valid: false, invalid_reason: "rate 90 < 99% of 100")).reason)
    assert_match(/1 health check\(s\) failed/, SLO.judge(record(health: { "failures" => 1, "max_ms" => 2500 })).reason)
    assert_match(/no response/, SLO.judge(record(requests: 0)).reason)
  end

  def test_marginal_near_the_objective
    assert SLO.judge(record(p99: 450)).marginal
    refute SLO.judge(record(p99: 100)).marginal
  end
end
