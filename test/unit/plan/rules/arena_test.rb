# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class ArenaRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Arena

  def test_the_arena_serves_its_catalogue_only
    passes(endpoints: ["/hello", "/pause/0.05"])
    assert_match(%r{\Athe built-in arena app does not serve /nope; its endpoints: .* \(your own app: --app PATH\)\z},
                 refused(endpoints: ["/hello", "/nope"]))
    assert_match(%r{does not serve /sick}, refused(health_path: "/sick"))
    assert_match(%r{does not serve /mix}, refused(scenario: "/hello:3,/mix:1"))
    assert_match(%r{does not serve /nope}, refused(app: "arena", endpoints: ["/nope"]))
  end

  def test_other_apps_and_running_servers_serve_their_own_paths
    passes(app: "/srv/app", endpoints: ["/nope"])
    passes(url: "http://127.0.0.1:9", endpoints: ["/nope"])
  end
end
