# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class BootRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Boot

  def test_apart_asks_nothing
    passes(boot: "apart", url: "http://127.0.0.1:9", port: 9292)
  end

  def test_together_boots_two_or_more_of_rackbench_s_own_on_ports_of_their_own
    two = setups("puma x2:5", "unicorn x2")
    passes(boot: "together", setups: two)
    assert_match(/the server at --url is your own: drop --boot\z/, refused(boot: "together", url: "http://127.0.0.1:9"))
    assert_match(/each on a port of its own: drop --port\z/, refused(boot: "together", setups: two, port: 9292))
    assert_equal "--boot together boots a round's setups side by side: give 2 or more (-s \"puma x2:5\" -s ...)",
                 refused(boot: "together", setups: setups("puma x2:5"))
  end
end
