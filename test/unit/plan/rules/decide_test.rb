# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class DecideRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Decide

  def test_without_decide_nothing_is_asked
    passes(decide: false, setups: setups("puma x2:5"), max_rounds: 2)
  end

  def test_decide_needs_two_setups_of_rackbench_s_own
    assert_match(/\A--decide compares setups: --url measures one server/, refused(decide: true, url: "http://127.0.0.1:9"))
    assert_equal '--decide compares setups: give 2 or more (-s "puma x2:5" -s ...), or use --repeat N for one ' \
                 "setup's rounds", refused(decide: true, setups: setups("puma x2:5"))
    passes(decide: true, setups: setups("puma x2:5"), refs: %w[main HEAD]) # run --ref: one setup per commit
    passes(decide: true, setups: setups("puma x2:5", "unicorn x2"))
  end

  def test_the_rounds_must_reach_a_decision
    least = Rackbench::Stats::Decision.smallest_max_rounds(repeat: 1, margin: 0.05)
    assert_operator least, :>, 2
    assert_match(/\A--max-rounds 2 cannot reach a decision .* give --max-rounds #{least} or more\z/,
                 refused(decide: true, setups: setups("puma x2:5", "unicorn x2"), max_rounds: 2, repeat: 1, margin: 0.05))
    passes(decide: true, setups: setups("puma x2:5", "unicorn x2"), max_rounds: least, repeat: 1, margin: 0.05)
  end
end
