# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/errors"
require "rackbench/verify"
require "rackbench/load/result"

class RunnerErrorsTest < Minitest::Test
  Outcome = Rackbench::Verify::Outcome
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
  end

  def test_goodput_leaves_out_error_statuses_and_timeouts
    r = Rackbench::Load::Result.new(requests: 105, duration_s: 2.0, errors: ERRS, latency_ms: {})
    assert_in_delta 50.0, Rackbench::Runner::Errors.goodput(r)
    assert_in_delta 52.5, r.rps
  end
end
