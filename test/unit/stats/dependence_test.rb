# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/dependence"
require "rackbench/stats/decision"

# Rounds that follow each other alike are found and widen the interval;
# independent ones do not; skew is read and said.
class DependenceTest < Minitest::Test
  Dependence = Rackbench::Stats::Dependence

  def normal(rng) = Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand)

  def ar1(rng, n, r)
    x = normal(rng)
    Array.new(n) { x = r * x + Math.sqrt(1 - r * r) * normal(rng) }
  end

  def test_below_eight_rounds_nothing_is_read
    assert_nil Dependence.of([0.01] * 7)
  end

  # 2,000 runs of 20 rounds each: AR(1) 0.7 rounds are found dependent in
  # most runs, independent ones in about one in twenty (the test's level),
  # and the bias-corrected estimate is near the truth on average.
  def test_dependent_rounds_are_found_and_independent_ones_mostly_not
    rng = Random.new(3)
    dependent = Array.new(2000) { Dependence.of(ar1(rng, 20, 0.7)) }
    independent = Array.new(2000) { Dependence.of(ar1(rng, 20, 0.0)) }
    assert_operator dependent.count(&:dependent?), :>, 0.7 * 2000
    assert_in_delta 0.05, independent.count(&:dependent?) / 2000.0, 0.025
    assert_in_delta 0.7, dependent.sum(&:lag1) / 2000, 0.1
    assert_in_delta 0.0, independent.sum(&:lag1) / 2000, 0.05
  end

  def test_the_interval_is_widened_by_the_ar1_factor
    d = Dependence.of([0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09]) # a trend: strongly dependent
    assert d.dependent?
    r = d.lag1.clamp(0.0, Dependence::CAP)
    assert_in_delta Math.sqrt((1 + r) / (1 - r)), d.inflation, 1e-12
    assert_match(/rounds that follow each other are alike \(lag-1 autocorrelation \d\.\d\d\): the interval is widened \d\.\d\dx/, d.warning)
    d_rounds = [0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09]
    plain = Rackbench::Stats::Decision.of([100.0] * 10, d_values(d_rounds), paired: true)
    off = Rackbench::Stats::Decision.of([100.0] * 10, d_values(d_rounds), paired: true,
                                        budget: Rackbench::Stats::ErrorBudget.new(looks: Rackbench::Stats::Looks.fixed(dependence: false)))
    assert_in_delta d.inflation, Math.log(plain.ci_high / plain.ci_low) / Math.log(off.ci_high / off.ci_low), 1e-9
    assert_equal d.lag1.round(3), plain.to_h["lag1_autocorrelation"]
  end

  def test_skew_is_read_with_its_sign
    d = Dependence.of([0.0, 0.01, -0.01, 0.005, -0.005, 0.0, 0.01, -0.3])
    assert_operator d.skew, :<, -1.5
    assert d.skewed?
    assert_match(/rounds skewed \(skewness -\d\.\d\)/, d.warning)
  end

  def d_values(d) = d.map { |x| 100.0 * Math.exp(x) }
end
