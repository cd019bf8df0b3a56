# frozen_string_literal: true

require "test_helper"
require "support/rule_case"

class ProtocolRuleTest < Minitest::Test
  include RuleCase

  def rule = Rackbench::Config::Rules::Protocol

  def test_http_1_engines_take_any_setup
    passes(engine: "wrk", setups: setups("unicorn x2", "puma x2:5 behind nginx"))
  end

  def test_h2c_needs_a_server_that_serves_it_with_nothing_in_front
    message = refused(engine: "h2load", setups: setups("unicorn x2", "falcon x2"))
    assert_match(/\A--engine h2load speaks HTTP\/2 in cleartext \(h2c, prior knowledge\), which unicorn x2 cannot serve: /,
                 message)
    assert_match(/or use --engine wrk\z/, message)
    assert_match(/with nothing in front/, refused(engine: "h2load", setups: setups("falcon x2 behind nginx")))
    passes(engine: "h2load", setups: setups("falcon x2"))
    passes(engine: "h2load", url: "http://127.0.0.1:9") # the user's server is theirs to know
  end

  def test_with_tls_it_is_h2
    assert_match(/speaks HTTP\/2 over TLS \(h2, negotiated by ALPN\)/, refused(engine: "h2load", tls: true, setups: setups("puma x1:5")))
  end
end
