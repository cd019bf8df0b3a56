# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class ProfileRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Profile

  def test_the_profile_runs_only_in_cruby_servers_rackbench_boots
    assert_match(/\A--profile runs inside a server rackbench boots; the server at --url is your own: drop --profile/,
                 refused(profile: true, url: "http://127.0.0.1:9"))
    assert_equal "--profile cannot profile puma x1:4 on jruby: stackprof runs on CRuby only; drop those setups or --profile",
                 refused(profile: true, setups: setups("puma x2:5", "puma x1:4 on jruby"))
    passes(profile: false, url: "http://127.0.0.1:9")
    passes(profile: true, setups: setups("puma x2:5", "puma x2:5 on yjit"))
  end
end
