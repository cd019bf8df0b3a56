# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/errors"
require "rackbench/runner/verify"
require "rackbench/load/result"
require "rackbench/search/slo"

class RunnerErrorsTest < Minitest::Test
  Outcome = Rackbench::Runner::Verify::Outcome
  ERRS = { "connect" => 0, "read" => 120, "write" => 0, "timeout" => 2, "status" => 3 }.freeze

  def test_read_errors_of_close_delimited_responses_are_artifacts
    c = Rackbench::Runner::Errors.classify(ERRS, Outcome.new(close_delimited: true))
    assert_equal 5, c["server_failures"]
    assert_equal 120, c["artifacts"]["read_close_delimited"]
  end

  def test_read_errors_with_content_length_are_failures
    c = Rackbench::Runner::Errors.classify(ERRS, Outcome.new(close_delimited: false))
    assert_equal 125, c["server_failures"]
    assert_equal 0, c["artifacts"]["read_close_delimited"]
    assert_equal 0, c["artifacts"]["read_after_error_response"]
  end

  # Unicorn's bare 500 ends by closing the connection: wrk counts the one
  # request as a status error and a read error. Counted once.
  def test_unicorns_500s_are_counted_once
    errs = { "connect" => 0, "read" => 40, "write" => 0, "timeout" => 0, "status" => 40 }
    c = Rackbench::Runner::Errors.classify(errs, Outcome.new(close_delimited: false), server: "unicorn")
    assert_equal 40, c["server_failures"]
    assert_equal 40, c["artifacts"]["read_after_error_response"]
    puma = Rackbench::Runner::Errors.classify(errs, Outcome.new(close_delimited: false), server: "puma")
    assert_equal 80, puma["server_failures"], "on other servers a read error is a failure of its own"
    more = Rackbench::Runner::Errors.classify(errs.merge("read" => 45), nil, server: "unicorn")
    assert_equal 45, more["server_failures"], "read errors beyond the 500s are failures (a worker killed mid-request)"
  end

  # Error rate: failures over requests tried, each counted once. 100
  # responses all 500: 100%, not 100 / (100 + 100) = 50%.
  def test_error_rate_counts_each_failed_request_once
    rate = ->(failures, responses, errs) { Rackbench::Runner::Errors.error_rate(failures, responses, errs) }
    assert_in_delta 1.0, rate.call(100, 100, "status" => 100)
    assert_in_delta 0.1, rate.call(10, 100, "status" => 5, "timeout" => 5)
    assert_in_delta 20.0 / 110, rate.call(20, 100, "status" => 10, "connect" => 10), 1e-12
    assert_in_delta 0.0, rate.call(0, 0, {})
  end

  def test_the_slo_judges_the_once_counted_rate
    slo = Rackbench::Search::Slo.new(p99_ms: 500, error_rate: 0.5)
    record = { "latency_ms" => { "p99" => 10.0 }, "requests" => 100, "error_total" => 100,
               "errors" => { "status" => 100 } }
    refute slo.judge(record).pass, "every response failed: 100% > 50%"
    assert_equal "errors 100.00% over 50%", slo.judge(record).reason
    assert slo.judge(record.merge("error_rate" => 0.2)).pass, "the stored rate is the one judged"
  end

  def test_goodput_leaves_out_error_statuses_and_timeouts
    r = Rackbench::Load::Result.new(requests: 105, duration_s: 2.0, errors: ERRS, latency_ms: {})
    assert_in_delta 50.0, Rackbench::Runner::Errors.goodput(r)
    assert_in_delta 52.5, r.rps
  end
end
