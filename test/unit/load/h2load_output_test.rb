# frozen_string_literal: true

require "test_helper"
require "rackbench/load/h2load_output"
require_relative "../../support/fixture_files"

# Fixtures are real h2load 1.52 output and --log-file rows;
# test/fixtures/h2load/README.md says how each was recorded.
class H2loadOutputTest < Minitest::Test
  include FixtureFiles

  FIXTURES = File.expand_path("../../fixtures/h2load", __dir__)
  H2loadOutput = Rackbench::Load::H2loadOutput
  NO_ERRORS = { "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => 0 }.freeze
  LATENCY_KEYS = %w[min mean stdev max p50 p75 p90 p99 p99.9].freeze

  def parse(name, duration_s: 1.0, url: "http://127.0.0.1:39601/")
    log = File.exist?(File.join(FIXTURES, "#{name}.tsv")) ? fixture("#{name}.tsv") : ""
    H2loadOutput.parse(fixture("#{name}.txt"), log, duration_s: duration_s, command: %w[h2load -c 8], url: url)
  end

  def test_healthy_run_counts_complete_responses_over_the_window
    result = parse("ok")
    assert_equal "h2load", result.engine
    assert_equal 3445, result.requests, "done; the 8 streams open at the end are not counted"
    assert_in_delta 1.0, result.duration_s
    assert_in_delta 3445.0, result.rps, 1e-9, "h2load's own req/s: 3445.00"
    assert_equal 155_694, result.bytes
    assert_equal NO_ERRORS, result.errors
    assert_equal "closed", result.loop
    assert_equal "h2c", result.protocol
    assert_equal %w[h2load -c 8], result.command
  end

  # The log's figures against h2load's own "time for request" line (rounded
  # to 10 µs, or truncated to 1 µs below a millisecond), on every fixture
  # with responses.
  def test_latency_from_the_log_agrees_with_h2loads_own_line
    %w[ok pause status_404 multiplexed tls_h2].each do |name|
      latency = parse(name, url: name.start_with?("tls") ? "https://127.0.0.1:39605/hello" : "http://127.0.0.1:39601/").latency_ms
      own = H2loadOutput.summary(fixture("#{name}.txt"))[:request_ms]
      assert_equal LATENCY_KEYS.sort, latency.keys.sort
      assert(latency.values.all?(Float), "#{name}: #{latency}")
      { "min" => "min", "max" => "max", "mean" => "mean", "stdev" => "sd" }.each do |ours, theirs|
        assert_in_delta own[theirs], latency[ours], 0.0051, "#{name} #{ours}: log #{latency[ours]}, h2load #{own[theirs]}"
      end
      ordered = latency.values_at("min", "p50", "p75", "p90", "p99", "p99.9", "max")
      assert_equal ordered.sort, ordered, "#{name}: #{latency}"
    end
  end

  # Nearest rank over the log's 72 rows, checked by hand against the sorted
  # column: p50 is the 36th smallest, p90 the 65th, p99 and p99.9 the 72nd.
  def test_percentiles_are_nearest_rank
    us = fixture("pause.tsv").lines.map { |l| Integer(l.split("\t")[2]) }.sort
    assert_equal 72, us.size
    latency = parse("pause").latency_ms
    assert_in_delta us[35] / 1000.0, latency["p50"]
    assert_in_delta us[53] / 1000.0, latency["p75"]
    assert_in_delta us[64] / 1000.0, latency["p90"]
    assert_in_delta us[71] / 1000.0, latency["p99"]
    assert_in_delta us[71] / 1000.0, latency["p99.9"]
    assert_in_delta 50.839, latency["min"]
  end

  def test_status_failures_are_responses_and_status_errors
    result = parse("status_404")
    assert_equal 3315, result.requests
    assert_equal NO_ERRORS.merge("status" => 3315), result.errors
  end

  def test_multiplexed_streams
    result = parse("multiplexed")
    assert_equal 3815, result.requests
    assert_equal NO_ERRORS, result.errors
  end

  # --tls: h2 offered by ALPN; what h2load's connections agreed is kept.
  def test_h2_over_tls_keeps_what_the_connections_agreed
    r = parse("tls_h2", url: "https://127.0.0.1:39605/hello")
    assert_equal ["h2", 9413, { "version" => "TLSv1.3", "cipher" => "TLS_AES_128_GCM_SHA256" }], [r.protocol, r.requests, r.tls]
    assert_nil parse("ok").tls, "no TLS over http://"
  end

  # A server that offers no h2 by ALPN: h2load falls back to HTTP/1.1, which is not what --engine h2load measures.
  def test_a_tls_server_without_h2_is_named
    e = assert_raises(Rackbench::Error) { parse("tls_http1", url: "https://127.0.0.1:39606/hello") }
    assert_match(%r{h2load negotiated http/1\.1, not h2, with https://127\.0\.0\.1:39606/hello: the server offers no HTTP/2 over TLS}, e.message)
  end

  def test_a_server_that_answers_in_http1_is_named
    error = assert_raises(Rackbench::Error) { parse("not_h2c") }
    assert_match(/got no complete response in 1.0 s, though 102 bytes came back: the server does not serve HTTP\/2 in cleartext/,
                 error.message)
    refute_includes error.message, "\n"
  end

  def test_refused_connections_are_named
    error = assert_raises(Rackbench::Error) { parse("connection_refused") }
    assert_equal "h2load could not connect to http://127.0.0.1:39601/: is the server listening?", error.message
  end

  # No byte back: the empty result stands, and the runner counts the silent
  # connections' requests as timeouts (Runner::Errors.with_unanswered).
  def test_silence_is_an_empty_result
    %w[no_response closed_at_once].each do |name|
      result = parse(name)
      assert_equal 0, result.requests, name
      assert_equal NO_ERRORS, result.errors, name
      assert(result.latency_ms.values.all?(&:nil?), name)
    end
  end

  def test_a_window_that_is_not_the_one_h2load_divided_by_is_refused
    error = assert_raises(Rackbench::Error) { parse("ok", duration_s: 2.0) }
    assert_match(/req\/s \(3445.0\) is not its 3445 responses over 2.0 s/, error.message)
  end

  def test_a_log_that_does_not_match_the_counts_is_refused
    rows = fixture("ok.tsv").lines
    error = assert_raises(Rackbench::Error) do
      H2loadOutput.parse(fixture("ok.txt"), rows.drop(1).join, duration_s: 1.0)
    end
    assert_match(/holds 3444 rows for its 3445 requests done/, error.message)
  end

  def test_output_without_statistics_is_an_error_not_zeros
    error = assert_raises(Rackbench::Error) { H2loadOutput.parse(fixture("inactivity_abort.txt"), "", duration_s: 2.0) }
    assert_match(/no "requests:" line/, error.message)
  end

  def test_failure_messages_in_h2loads_words
    assert_equal "h2load rejected its arguments: -c, -t: the number of clients must be greater than or equal to " \
                 "the number of threads.", H2loadOutput.failure_message(fixture("usage_threads.txt"))
    assert_match(/\Ah2load aborted: h2load: ev_epoll.c:134: epoll_modify: Assertion/,
                 H2loadOutput.failure_message(fixture("inactivity_abort.txt")))
    assert_equal "h2load failed and printed nothing", H2loadOutput.failure_message("")
  end

  def test_times_in_every_unit
    s = H2loadOutput.summary(fixture("ok.txt"))
    assert_in_delta 0.309, s[:request_ms]["min"]
    assert_in_delta 59.12, s[:request_ms]["max"]
    assert_in_delta 1.0, s[:finished_s]
    assert_equal({ "2xx" => 3446, "3xx" => 0, "4xx" => 0, "5xx" => 0 }, s[:status])
    assert_equal 3453, s[:requests]["started"]
  end
end
