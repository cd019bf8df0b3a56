# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/config"

# Config::RULES is the one list of the plan's cross-field rules: every file
# of plan/rules/ is in it once, and the rules that settle a value run before
# those that read it.
class RulesOrderTest < Minitest::Test
  RULES = Rackbench::Config::RULES
  R = Rackbench::Config::Rules

  def test_every_rule_file_is_listed_once
    files = Dir[File.expand_path("../../../../lib/rackbench/plan/rules/*.rb", __dir__)].map { |f| File.basename(f, ".rb") }
    listed = RULES.filter_map { |r| r.name.split("::").last.gsub(/(?<=[a-z])(?=[A-Z])/, "_").downcase if r.name.include?("::Rules::") }
    assert_equal files.sort, listed.sort
    assert_equal RULES.uniq, RULES
    assert RULES.all? { |r| r.respond_to?(:check) }
    orders = RULES.map { |r| r::ORDER }
    assert_equal orders.uniq.sort, orders, "each rule's ORDER its own, RULES run by it"
  end

  def test_a_settled_value_is_settled_before_it_is_read
    assert_operator RULES.index(R::Loop), :<, RULES.index(R::ScenarioEngine), "the open-loop engine, then --scenario's engine"
    assert_operator RULES.index(R::Loop), :<, RULES.index(R::Protocol)
    assert_operator RULES.index(R::Url), :<, RULES.index(R::Arena), "--url's endpoint, then the arena's paths"
    assert_operator RULES.index(R::Refs), :<, RULES.index(R::Arena)
  end
end
