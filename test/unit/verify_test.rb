# frozen_string_literal: true

require "test_helper"
require "rackbench/verify"

class VerifyTest < Minitest::Test
  Res = Rackbench::Server::HttpProbe::Response

  def res(body, status: 200, type: "application/json", headers: { "content-length" => body.bytesize.to_s })
    Res.new(status: status, content_type: type, body: body, headers: headers)
  end

  def problem(path, response, **opts)
    Rackbench::Verify::ArenaChecks.problem(path, response, **opts)
  end

  def test_right_answers_pass
    assert_nil problem("/fibonacci/25", res('{"n":25,"value":75025}'))
    assert_nil problem("/pi/20", res("3.14159265358979323846", type: "text/plain"))
    assert_nil problem("/server", res('{"server":"puma"}'), server: "puma")
    assert_nil problem("/hello", res("Hello, world!\n", type: "text/plain"))
    assert_nil problem("/network-io", res('{"bytes":100}'), upstream_bytes: 100)
  end

  def test_wrong_answers_say_what_was_wrong
    assert_match(/fibonacci\(25\) answered 75024, expected 75025/, problem("/fibonacci/25", res('{"value":75024}')))
    assert_match(/pi does not begin/, problem("/pi/20", res("3.24159265358979323846")))
    assert_match(/pi has 19 decimals, expected 20/, problem("/pi/20", res("3.1415926535897932384")))
    assert_match(/names "thin", but the server under test is "puma"/, problem("/server", res('{"server":"thin"}'), server: "puma"))
    assert_match(/expected an HTML page/, problem("/template-render", res("{}")))
  end

  def test_close_delimited_detection
    r = res("x", headers: { "connection" => "close" })
    assert r.close_delimited?
    assert r.connection_close?
    refute res("x").close_delimited?
  end
end
