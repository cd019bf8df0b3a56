# frozen_string_literal: true

require "test_helper"
require "rackbench/load/wrk_output"
require_relative "../../support/fixture_files"

# Fixtures are real wrk 4.1.0 output; test/fixtures/wrk/README.md says how
# each was recorded.
class WrkOutputTest < Minitest::Test
  include FixtureFiles

  FIXTURES = File.expand_path("../../fixtures/wrk", __dir__)
  WrkOutput = Rackbench::Load::WrkOutput

  def test_healthy_run
    result = parse("ok.txt", command: %w[wrk -c 4])
    assert_equal "wrk", result.engine
    assert_equal 4401, result.requests
    assert_in_delta 1.004606, result.duration_s, 1e-9
    assert_equal 308_146, result.bytes
    assert_equal "closed", result.loop
    assert_equal %w[wrk -c 4], result.command
    assert_equal 0, result.error_total
    assert_in_delta 4380.8, result.rps, 0.1
  end

  def test_latency_in_milliseconds
    latency = parse("ok.txt").latency_ms
    expected = { "min" => 0.122, "mean" => 1.037589, "stdev" => 1.021726, "max" => 12.987, "p50" => 0.83,
                 "p75" => 1.154, "p90" => 1.642, "p99" => 5.965, "p99.9" => 11.879 }
    assert_equal expected.keys, latency.keys
    expected.each { |key, ms| assert_in_delta ms, latency[key], 1e-9, key }
  end

  def test_non_2xx_responses_are_status_errors_and_still_requests
    result = parse("status_503.txt")
    assert_equal 3082, result.requests
    assert_equal({ "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => 3082 }, result.errors)
  end

  def test_responses_slower_than_timeout_are_timeouts_outside_latency
    result = parse("timeouts.txt")
    assert_equal 8, result.errors["timeout"]
    assert_in_delta 5.51, result.latency_ms["max"]
  end

  def test_no_latency_sample_gives_nil_latency
    result = parse("all_timeouts.txt")
    assert_equal 2, result.requests
    assert_equal 2, result.errors["timeout"]
    assert(result.latency_ms.values.all?(&:nil?), result.latency_ms.inspect)
  end

  def test_close_delimited_responses_count_one_read_error_each
    result = parse("read_errors_close_delimited.txt")
    assert_equal result.requests, result.errors["read"]
    assert_in_delta 1.100014, result.duration_s, 1e-9
  end

  def test_reset_connections_give_zero_requests_and_read_errors
    result = parse("read_errors_reset.txt")
    assert_equal 0, result.requests
    assert_equal 3233, result.errors["read"]
    assert_in_delta 0.0, result.rps
  end

  def test_silent_server_gives_zero_requests_and_no_errors
    result = parse("no_response.txt")
    assert_equal 0, result.requests
    assert_equal 0, result.error_total
  end

  def test_missing_result_line_raises
    error = assert_raises(Rackbench::Error) { parse("connection_refused.txt") }
    assert_match(/no RACKBENCH_RESULT line/, error.message)
  end

  def test_garbled_json_raises
    assert_raises(Rackbench::Error) { WrkOutput.parse("RACKBENCH_RESULT {\"requests\":12,\n") }
    assert_raises(Rackbench::Error) { WrkOutput.parse("RACKBENCH_RESULT [1,2]\n") }
  end

  def test_missing_or_wrong_fields_raise
    line = fixture("ok.txt")[/^RACKBENCH_RESULT .*$/]
    assert_raises(Rackbench::Error) { WrkOutput.parse(line.sub('"requests":4401', '"requests":"x"')) }
    assert_raises(Rackbench::Error) { WrkOutput.parse(line.sub('"read":0,', "")) }
    assert_raises(Rackbench::Error) { WrkOutput.parse(line.sub('"p99.9":11879', '"p99.8":11879')) }
  end

  def test_connection_refused_message_names_the_url
    message = WrkOutput.failure_message(fixture("connection_refused.txt"), url: "http://127.0.0.1:39409/")
    assert_equal "wrk could not connect to http://127.0.0.1:39409/: Connection refused; is the server listening?",
                 message
  end

  def test_bare_usage_text_means_a_rejected_option_value
    message = WrkOutput.failure_message(fixture("usage_fractional_duration.txt"))
    assert_match(/\Awrk rejected its arguments: .*whole seconds/, message)
  end

  def test_reason_before_usage_text_is_kept
    message = WrkOutput.failure_message(fixture("threads_above_connections.txt"))
    assert_equal "wrk rejected its arguments: number of connections must be >= threads", message
  end

  def test_other_failures_quote_the_last_line
    assert_equal "wrk failed: invalid URL: nope", WrkOutput.failure_message("invalid URL: nope\n")
    assert_equal "wrk failed: wrk printed nothing", WrkOutput.failure_message("")
  end

  private

  def parse(name, command: nil)
    WrkOutput.parse(fixture(name), command: command)
  end
end
