# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class ProbeRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Probe

  def test_the_probe_runs_only_in_a_server_rackbench_boots
    assert_match(/\A--probe runs inside a server rackbench boots; the server at --url is your own: drop --probe/,
                 refused(probe: true, url: "http://127.0.0.1:9"))
    passes(probe: nil, url: "http://127.0.0.1:9")
    passes(probe: false, url: "http://127.0.0.1:9")
    passes(probe: true, app: "/srv/app")
  end
end
