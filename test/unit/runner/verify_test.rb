# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/verify"

class VerifyTest < Minitest::Test
  Res = Rackbench::ProcessControl::HttpProbe::Response

  def res(body, status: 200, type: "application/json", headers: { "content-length" => body.bytesize.to_s })
    Res.new(status: status, content_type: type, body: body, headers: headers)
  end

  def problem(path, response, **opts)
    Rackbench::Runner::Verify::ArenaChecks.problem(path, response, **opts)
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

# What verification says of a status that is not the page.
class VerifyStatusTest < Minitest::Test
  Res = Rackbench::ProcessControl::HttpProbe::Response

  def res(status, body: "", headers: {})
    Res.new(status: status, content_type: headers["content-type"].to_s, body: body, headers: headers, http_version: "1.1")
  end

  def problem(response, **opts)
    Rackbench::Runner::Verify::Status.problem(response, **opts)
  end

  def test_a_redirect_fails_naming_where_it_points_and_why
    msg = problem(res(301, headers: { "location" => "https://127.0.0.1:3000/" }))
    assert_match(%r{\Astatus 301 redirects to https://127\.0\.0\.1:3000/: }, msg)
    assert_match(/config\.force_ssl = false, or config\.assume_ssl = true/, msg)
    assert_match(/pass --expect-status 301 to measure the redirect itself/, msg)
    other = problem(res(302, headers: { "location" => "/login" }))
    assert_match(%r{status 302 redirects to /login: the app redirects this path}, other)
    refute_match(/force_ssl/, other)
  end

  def test_expected_statuses_pass_and_others_fail
    assert_nil problem(res(200))
    assert_nil problem(res(301, headers: { "location" => "https://x/" }), expect: [301])
    assert_match(/status 200, but --expect-status asks for 301 or 302/, problem(res(200), expect: [301, 302]))
  end

  def test_an_error_page_is_quoted_by_its_title_and_the_logs_error_line
    page = "<!DOCTYPE html>\n<html><head><title>We&#39;re sorry, but something went wrong (500)</title></head></html>"
    assert_equal "status 500: We're sorry, but something went wrong (500)", problem(res(500, body: page))
    assert_equal "status 404: Not Found", problem(res(404, body: "<!DOCTYPE html><body><h1>Not Found</h1></body>"))
    log = File.join(Dir.mktmpdir, "server.log")
    File.write(log, "Puma starting\nE, [x] ERROR -- : NoMethodError (undefined method `title' for nil):\n  app/x.rb:3\n")
    assert_match(/status 500: We're sorry.*; the server log says: NoMethodError \(undefined method/,
                 problem(res(500, body: page), server_log: log))
  ensure
    FileUtils.rm_rf(File.dirname(log)) if log
  end

  # A server that accepts and closes at once is not "no response within
  # 30 s" (issue 46, item 8): it closed, at once; the log's error with it.
  def test_a_server_that_closes_at_once_is_said_to_close
    require "socket"
    server = TCPServer.new("127.0.0.1", 0)
    closer = Thread.new { loop { server.accept.close } }
    log = File.join(tmpdir, "server.log")
    File.write(log, "E, [2026-11-28T17:58:38.074464 #916] ERROR -- : DATABASE_URL is not set (ArgumentError)\n" \
                    "E, [2026-11-28T17:58:38.218528 #417] ERROR -- : reaped #<Process::Status: pid 916 exit 1> worker=0\n")
    verify = Rackbench::Runner::Verify.new(host: "127.0.0.1", port: server.addr[1], timeout: 30, server_log: log)
    started = Rackbench::Clock.now
    e = assert_raises(Rackbench::Runner::Verify::Failed) { verify.call("/") }
    assert_operator Rackbench::Clock.now - started, :<, 5
    said = "the server log says: DATABASE_URL is not set (ArgumentError) (#{log})"
    assert_match(%r{\Averification of / failed: the server closed the connection without an answer, 0\.\d s after the request; }, e.message)
    assert e.message.end_with?(said), e.message
  ensure
    closer&.kill
    server&.close
  end

  def test_keep_alive_is_judged_from_the_response
    refute res(200, headers: { "content-length" => "2" }).connection_close?
    assert res(200, headers: { "connection" => "close" }).connection_close?
    http10 = Res.new(status: 200, content_type: "", body: "", headers: {}, http_version: "1.0")
    assert http10.connection_close?, "an HTTP/1.0 answer without keep-alive ends the connection"
  end
end

# The line of a log that says what went wrong.
class ErrorLineTest < Minitest::Test
  E = Rackbench::ProcessControl::ErrorLine

  def test_skips_backtrace_lines_for_the_error
    log = <<~LOG
      /usr/lib/ruby/3.1.0/optparse.rb:1405:in `block in complete': invalid option: --no-config (OptionParser::InvalidOption)
      \tfrom /usr/lib/ruby/3.1.0/optparse.rb:1403:in `catch'
      \tfrom /app/vendor/bundle/ruby/3.1.0/gems/puma-4.3.12/bin/puma:25:in '<main>'
    LOG
    assert_match(/invalid option: --no-config/, E.first(log))
    bundler = "Your Ruby version is 3.1.2, but your Gemfile specified 2.1.5\n"
    assert_equal "Your Ruby version is 3.1.2, but your Gemfile specified 2.1.5", E.first("Puma starting\n#{bundler}last\n")
    assert_equal "last words", E.first("first\nlast words\n\tfrom x.rb:1:in `y'\n"), "no error-looking line: the last one"
    assert_nil E.first("")
  end
end
