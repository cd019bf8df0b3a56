# frozen_string_literal: true

require_relative "../../../test_helper"
require "rackbench/search/bisect/budget"
require "rackbench/stats/looks"
require "rackbench/stats/error_budget"

# The error a bisection spends: K decisions, each at rate / K, and a run's
# looks spending only their share (Stats::Looks#rate_share).
class BisectBudgetTest < Minitest::Test
  Budget = Rackbench::Search::Bisect::Budget
  Looks = Rackbench::Stats::Looks

  def test_k_is_bad_against_good_plus_log2_steps_plus_a_spare_plus_the_found_commits_own
    assert_equal({ 1 => 3, 2 => 4, 3 => 5, 8 => 6, 16 => 7, 64 => 9 }, [1, 2, 3, 8, 16, 64].to_h { |n| [n, Budget.new(n).decisions] })
  end

  def test_the_k_decisions_spend_the_rate_together
    budget = Budget.new(64)
    assert_in_delta 0.05, budget.per_decision * budget.decisions, 1e-12
    assert_includes budget.describe, "Bonferroni over 9 decisions"
    assert_includes budget.describe, "1 for the commit found against its parent"
  end

  def test_a_runs_looks_spend_only_their_share_of_the_rate
    looks = Looks.for_config(decide: true, repeat: 1, max_rounds: 12, rate_share: 0.125)
    assert_in_delta 0.125, (3..12).sum { |n| looks.share(n) }, 1e-12
    fixed = Rackbench::Stats::ErrorBudget.new(looks: Looks.for_config(rate_share: 0.2))
    assert_in_delta 0.99, fixed.confidence(5), 1e-12
    refute_predicate fixed, :plain?
  end

  def test_a_missing_or_bad_rate_share_is_the_whole_rate
    [nil, "x", 0, -1, 2].each do |bad|
      assert_in_delta 1.0, Looks.for_config(decide: true, repeat: 1, max_rounds: 12, rate_share: bad).rate_share, 1e-12
    end
  end
end
