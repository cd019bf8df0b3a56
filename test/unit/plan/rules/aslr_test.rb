# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class AslrRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Aslr

  def test_on_asks_nothing
    passes(aslr: "on", url: "http://127.0.0.1:9")
  end

  def test_off_is_for_servers_rackbench_starts_where_setarch_works
    assert_equal "--aslr off starts the servers rackbench boots; the server at --url is your own: drop --aslr",
                 refused(aslr: "off", url: "http://127.0.0.1:9")
    why = Rackbench::ProcessControl::Layout.problem
    return passes(aslr: "off") if why.nil?

    assert_equal "--aslr off: #{why}; drop --aslr off", refused(aslr: "off")
  end
end
