# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class PerBootRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::PerBoot

  def test_a_number_of_takes_needs_no_rounds
    passes(per_boot: 3, repeat: 1)
  end

  def test_auto_needs_a_round_after_the_pilots
    assert_equal "--per-boot auto measures 2 rounds of 2 takes per boot, then chooses the takes for the rounds " \
                 "after them: give -r 3 or more (or --decide)", refused(per_boot: "auto", repeat: 2)
    passes(per_boot: "auto", repeat: 3)
    passes(per_boot: "auto", repeat: 1, decide: true)
  end
end
