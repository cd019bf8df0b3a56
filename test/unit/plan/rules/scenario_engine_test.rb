# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class ScenarioEngineRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::ScenarioEngine

  def test_a_mix_replaces_the_endpoints
    passes(scenario: "/hello:3,/pause/0.05:1")
    assert_equal "give --endpoint or --scenario, not both", refused(scenario: "/hello:3", endpoints: ["/hello"])
  end

  def test_a_mix_needs_an_engine_that_loads_mixes
    assert_equal "--scenario needs --engine wrk or wrk-open (ab loads one URL)", refused(scenario: "/hello:3", engine: "ab")
  end

  def test_the_mix_must_parse
    assert_raises(Rackbench::UsageError) { rule.check(settings(scenario: "hello:x")) }
  end
end
