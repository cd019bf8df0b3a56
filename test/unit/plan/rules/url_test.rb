# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class UrlRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Url

  def test_a_path_in_the_url_is_the_endpoint
    cfg = passes(url: "http://127.0.0.1:3000/posts?page=2")
    assert_equal "http://127.0.0.1:3000", cfg[:url]
    assert_equal ["/posts?page=2"], cfg[:endpoints]
    assert_equal ["/"], passes(url: "http://127.0.0.1:3000/")[:endpoints]
    assert_equal ["/a"], passes(url: "http://127.0.0.1:3000", endpoints: ["/a"])[:endpoints]
  end

  def test_a_running_server_takes_no_setups_and_one_naming_of_the_endpoint
    assert_equal "--url benchmarks a server that is already running; drop --setup (got puma x2:5)",
                 refused(url: "http://127.0.0.1:3000", setups: setups("puma x2:5"))
    assert_match(/\A--url http:\/\/127\.0\.0\.1:3000\/a already names the endpoint \/a/,
                 refused(url: "http://127.0.0.1:3000/a", endpoints: ["/b"]))
    assert_match(/must be an http:\/\/ URL/, refused(url: "ftp://127.0.0.1/"))
  end

  def test_no_url_no_change
    assert_nil passes(url: nil)[:url]
  end
end
