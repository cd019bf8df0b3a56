# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class ProbeRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Probe

  def test_the_probe_runs_only_in_a_server_rackbench_boots
    assert_match(/\A--probe runs inside a server rackbench boots; the server at --url is your own: drop --probe/,
                 refused(probe: true, url: "http://127.0.0.1:9"))
    assert_equal false, passes(probe: nil, url: "http://127.0.0.1:9")[:probe], "neither flag: the default, settled"
    assert_equal false, passes(probe: false, url: "http://127.0.0.1:9")[:probe]
    assert_equal true, passes(probe: true, app: "/some/app")[:probe]
    assert_equal Rackbench::Config::PROBE_DEFAULT, Rackbench::Config.build[:probe], "a built value holds no nil"
    passes(probe: true, app: "/srv/app")
  end
end
