# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/decision"

class DecisionTest < Minitest::Test
  Decision = Rackbench::Stats::Decision

  def test_a_clear_fivefold_difference_is_decided_with_an_interval_holding_it
    a = [39.5, 40.1, 39.8, 40.3, 39.9]
    b = [195.0, 197.2, 194.1, 198.0, 196.3]
    d = Decision.of(a, b, paired: true)
    assert_equal :higher, d.outcome
    assert_operator d.ci_low, :<, 4.95
    assert_operator d.ci_high, :>, 4.9
    assert_equal 5, d.rounds
    assert_equal Decision::PAIRED, d.method
    assert_equal :lower, Decision.of(b, a, paired: true).outcome
  end

  def test_a_tight_interval_inside_the_margin_is_equivalent
    a = [1000, 1100, 950, 1050, 1020, 980]
    b = a.each_with_index.map { |v, i| v * (i.even? ? 1.01 : 0.99) }
    d = Decision.of(a, b, paired: true, margin: 0.05)
    assert_equal :equivalent, d.outcome, d.to_h.inspect
    assert_nil d.rounds_needed
  end

  # Pairing is what decides it: the same values unpaired (the rounds' drift
  # of +-10% left in) cannot tell.
  def test_unpaired_keeps_the_drift_and_stays_undecided
    a = [1000, 1100, 950, 1050, 1020, 980]
    b = a.each_with_index.map { |v, i| v * (i.even? ? 1.01 : 0.99) }
    d = Decision.of(a, b, paired: false, margin: 0.05)
    assert_equal :undecided, d.outcome, d.to_h.inspect
    assert_operator d.rounds_needed, :>, 6
    assert_equal Decision::UNPAIRED, d.method
  end

  def test_a_wide_interval_is_undecided_with_the_rounds_it_would_take
    a = [1070, 1290, 1100, 1200]
    b = [1290, 1070, 1150, 1180]
    d = Decision.of(a, b, paired: true)
    assert_equal :undecided, d.outcome
    assert_operator d.ci_low, :<, 0.95
    assert_operator d.ci_high, :>, 1.05
    assert_operator d.rounds_needed, :>, 4
  end

  def test_a_small_real_difference_needs_its_interval_beyond_the_margin
    a = [100, 101, 99, 100, 100.5, 99.5]
    b = a.map { |v| v * 1.03 }
    assert_equal :equivalent, Decision.of(a, b, paired: true, margin: 0.05).outcome, "3% is inside a 5% margin"
    assert_equal :higher, Decision.of(a, b, paired: true, margin: 0.01).outcome, "3% is beyond a 1% margin"
  end

  def test_too_few_values_or_non_positive_ones_give_no_decision
    assert_nil Decision.of([1.0], [2.0], paired: true)
    assert_nil Decision.of([1.0, 2.0], [1.0], paired: true)
    assert_nil Decision.of([0.0, 2.0], [1.0, 1.0], paired: true)
  end

  # Holm's step-down: the smallest p is held to alpha / m. Two marginal
  # decisions, each decided alone (p < 0.025), fail that together.
  def test_holm_holds_a_family_of_marginal_decisions_together
    marginal = -> { Decision.of([100, 100, 100], [108, 112, 110], paired: true) }
    alone = marginal.call
    assert_equal :higher, alone.outcome, alone.to_h.inspect
    assert alone.p_value.between?(0.0125, 0.025), "p = #{alone.p_value}: decided alone, not in a family of 2"
    Decision.holm([alone])
    assert_equal :higher, alone.outcome, "a family of one keeps it"
    pair = [marginal.call, marginal.call]
    Decision.holm(pair)
    assert_equal %i[undecided undecided], pair.map(&:outcome)
    assert_equal 2, pair.first.to_h["held_by_holm"]
    clear = Decision.of([40, 40.2, 39.9, 40.1], [200, 201, 199, 200.5], paired: true)
    Decision.holm([clear, marginal.call])
    assert_equal :higher, clear.outcome, "a clear decision survives its family"
  end
end
