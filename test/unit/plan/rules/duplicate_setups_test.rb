# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class DuplicateSetupsRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::DuplicateSetups

  def test_a_setup_given_twice_is_refused_with_the_tags_that_would_keep_both
    assert_equal 'setup "puma x2:5" is given twice; give it once and use --repeat N for rounds (or tag each to ' \
                 'measure it under two names: "puma x2:5 #a" and "puma x2:5 #b")',
                 refused(setups: setups("puma x2:5", "unicorn x2", "puma x2:5"))
    passes(setups: setups("puma x2:5 #a", "puma x2:5 #b"))
  end
end
