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

  # A family of two: each decision spends half the rate, so the interval
  # printed is wider (R: 97.5% for a family of two, test/fixtures/stats),
  # and a decision that stands alone does not stand in the family.
  def test_a_family_widens_the_interval_the_words_are_read_from
    a = [100, 100, 100]
    b = [108, 112, 110]
    alone = Decision.of(a, b, paired: true)
    assert_equal :higher, alone.outcome, alone.to_h.inspect
    in_two = Decision.of(a, b, paired: true, budget: Rackbench::Stats::ErrorBudget.new(family: 2))
    assert_equal :direction_higher, in_two.outcome, in_two.to_h.inspect
    assert_operator in_two.ci_low, :<, 1.05, "the printed interval reaches the margin"
    assert_operator in_two.ci_low, :>, 1.0, "but not no change: the direction is known"
    assert_in_delta alone.ci_low, in_two.ci_low_unadjusted, 1e-12, "the plain 95% interval is kept beside it"
    assert_equal 2, in_two.to_h["family_size"]
    assert_in_delta 0.975, in_two.to_h["confidence"], 1e-9
  end

  # Direction known, size not: the interval excludes 1 but crosses the margin.
  def test_a_known_direction_is_an_outcome_of_its_own
    a = [100, 101, 99, 100, 102]
    b = [92, 98, 91, 95, 96]
    d = Decision.of(a, b, paired: true)
    assert_equal :direction_lower, d.outcome, d.to_h.inspect
    assert_operator d.ci_high, :<, 1.0
    assert_operator d.ci_low, :<, 0.95
    assert_equal :lower, d.direction
    refute d.decided?
    assert_operator d.rounds_needed, :>, 5, "more rounds could put it beyond the margin"
  end

  # No certainty from identical numbers: the spread is floored at 0.5% a
  # round, so three equal rounds give an interval of +-t(0.975, 2) x 0.005 /
  # sqrt(3) = +-1.24%, not a zero-width one.
  def test_identical_rounds_give_an_interval_from_the_spread_floor
    d = Decision.of([100, 100, 100], [100, 100, 100], paired: true)
    half = 4.302652729749464 * Decision::SD_FLOOR / Math.sqrt(3)
    assert_in_delta Math.exp(-half), d.ci_low, 1e-9
    assert_in_delta Math.exp(half), d.ci_high, 1e-9
    assert_equal :equivalent, d.outcome
    assert_equal :higher, Decision.of([100, 100, 100], [120, 120, 120], paired: true).outcome
  end

  # --decide's looks: the rounds-needed estimate uses the look's own share,
  # and says nothing (nil) when no look up to --max-rounds would decide it.
  def test_rounds_needed_follow_the_looks_and_end_at_the_last
    looks = Rackbench::Stats::Looks.sequential(first: 1, max: 20)
    budget = Rackbench::Stats::ErrorBudget.new(looks: looks)
    a = [100, 104, 97, 101, 99]
    b = [101, 99, 104, 98, 103]
    fixed = Decision.of(a, b, paired: true)
    looked = Decision.of(a, b, paired: true, budget: budget)
    assert_equal :undecided, looked.outcome
    assert_operator looked.rounds_needed, :>, fixed.rounds_needed, "a smaller share per look needs more rounds"
    assert_operator looked.rounds_needed, :<=, 20
    wide = Decision.of([100, 130, 80, 120, 90], [120, 90, 110, 85, 130], paired: true, budget: budget)
    assert_nil wide.rounds_needed
    assert wide.out_of_looks?
  end
end
