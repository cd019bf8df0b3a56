# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class HttpsRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Https

  def test_every_setup_serves_tls_itself_or_behind_the_proxy
    passes(tls: true, setups: setups("puma x2:5", "unicorn x2 behind nginx"))
    assert_match(/\A--tls: unicorn x2: Unicorn serves no TLS .*; nginx in front serves TLS for it: -s "unicorn x2 behind nginx"\z/,
                 refused(tls: true, setups: setups("puma x2:5", "unicorn x2")))
  end

  def test_the_server_at_url_is_the_user_s
    assert_match(/\A--tls makes the servers rackbench boots serve HTTPS; .*drop --tls and give its https:\/\/ URL\z/,
                 refused(tls: true, url: "http://127.0.0.1:9"))
    passes(tls: false, url: "http://127.0.0.1:9", setups: setups("unicorn x2"))
  end

  def test_why_a_setup_cannot_serve_tls
    assert_nil rule.no_tls(setups("puma x2:5").first)
    assert_match(/Unicorn serves no TLS/, rule.no_tls(setups("unicorn x2").first))
  end
end
