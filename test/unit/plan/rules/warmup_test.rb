# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class WarmupRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Warmup

  def test_the_tolerance_is_a_share_below_one
    assert_equal "--warmup-tolerance is a share of throughput below 1, e.g. 0.05 for 5% (got 1.0)",
                 refused(warmup_tolerance: 1.0)
    passes(warmup_tolerance: 0.5)
  end

  def test_the_cap_holds_two_windows
    assert_equal "--warmup-max (3.0 s) must hold two --warmup-window windows (2.0 s each) to compare; raise it",
                 refused(warmup_max: 3.0, warmup_window: 2.0)
    passes(warmup_max: 4.0, warmup_window: 2.0)
  end
end
