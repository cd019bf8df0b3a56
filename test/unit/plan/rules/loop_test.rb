# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class LoopRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Loop

  def test_rates_with_the_default_engine_take_the_open_loop_default
    assert_equal Rackbench::Load.default_name("open"), passes(rate: [100.0])[:engine]
    assert_equal Rackbench::Load.default_name, passes(rate: [])[:engine]
  end

  def test_an_open_loop_engine_needs_rates
    assert_equal "--engine wrk-open is open-loop: give --rate, e.g. --rate 50,100,200", refused(engine: "wrk-open", rate: [])
  end

  def test_a_closed_loop_engine_refuses_rates_with_its_reason
    assert_equal "--engine ab is closed-loop and takes --concurrency, not --rate", refused(engine: "ab", rate: [50.0])
    assert_match(/\A--engine h2load is closed-loop and takes --concurrency, not --rate: h2load's --rps /,
                 refused(engine: "h2load", rate: [50.0]))
  end
end
