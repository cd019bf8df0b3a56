# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/errors"
require "rackbench/runner/verify"
require "rackbench/load/result"
require "rackbench/stats/slo"

class RunnerErrorsTest < Minitest::Test
  Outcome = Rackbench::Runner::Verify::Outcome
  ERRS = { "connect" => 0, "read" => 120, "write" => 0, "timeout" => 2, "status" => 3 }.freeze

  def test_read_errors_of_close_delimited_responses_are_artifacts
    c = Rackbench::Runner::Errors.classify(ERRS, Outcome.new(close_delimited: true))
    assert_equal 5, c["server_failures"]
    assert_equal 120, c["artifacts"]["read_close_delimited"]
  end

  # Each close-delimited response gives at most one read error: those beyond
  # the responses are connections closed with no answer (a worker that died).
  def test_read_errors_beyond_the_responses_are_crashes_not_artifacts
    crashes = ERRS.merge("read" => 1945, "timeout" => 0, "status" => 0)
    c = Rackbench::Runner::Errors.classify(crashes, Outcome.new(close_delimited: true), server: "unicorn", responses: 1750)
    assert_equal 1750, c["artifacts"]["read_close_delimited"]
    assert_equal 195, c["server_failures"]
    assert_in_delta 0.1, Rackbench::Runner::Errors.error_rate(c["server_failures"], 1750, crashes), 0.001
    healthy = Rackbench::Runner::Errors.classify(ERRS.merge("read" => 1750), Outcome.new(close_delimited: true), responses: 1750)
    assert_equal 5, healthy["server_failures"]
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
    slo = Rackbench::Stats::Slo.new(p99_ms: 500, error_rate: 0.5)
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

  def result(requests:, ages:, p50: 2.0, errors: ERRS.merge("timeout" => 0, "status" => 0, "read" => 0))
    Rackbench::Load::Result.new(requests: requests, duration_s: 3.0, errors: errors, latency_ms: { "p50" => p50 },
                                unanswered_ms: ages)
  end

  def with_unanswered(res, timeout_s: 30, concurrency: 4)
    Rackbench::Runner::Errors.with_unanswered(res.errors, res, concurrency, timeout_s)
  end

  # A server that answered 196 requests and then hung the four connections:
  # wrk saw 196 answers and no error.
  def test_requests_hung_at_the_end_are_counted_as_timeouts
    u = with_unanswered(result(requests: 196, ages: [2900.0, 2850.0, 2700.0, 2650.0]))
    assert_equal 4, u.count
    assert_equal 4, u.errors["timeout"]
    assert_match(/4 request\(s\) still unanswered when the trial ended had waited over 2 s/, u.note)
  end

  def test_requests_cut_by_the_end_of_a_healthy_trial_are_not
    u = with_unanswered(result(requests: 5000, ages: [1.5, 3.9, 0.2, 4.1]))
    assert_equal 0, u.count
    assert_nil u.note
    assert_equal 0, u.errors["timeout"]
  end

  def test_a_slow_endpoints_wait_is_judged_against_its_own_median
    slow = result(requests: 30, ages: [2500.0, 3500.0], p50: 150.0)
    assert_equal 1, with_unanswered(slow).count, "over 20 x 150 ms = 3 s: hung; 2.5 s: still being served"
    assert_equal 2, with_unanswered(slow, timeout_s: 1).count, "over the timeout is a timeout whatever the median"
    assert_equal 0, with_unanswered(result(requests: 900, ages: [1900.0], p50: 1.0)).count,
                 "a wait under 2 s (a long stop-the-world pause) is not a hang"
  end

  def test_no_answer_at_all_counts_every_connection_even_without_waits
    u = with_unanswered(result(requests: 0, ages: nil))
    assert_equal 4, u.errors["timeout"]
    assert_match(/no response in the whole trial/, u.note)
    rate = Rackbench::Runner::Errors.error_rate(4, 0, u.errors, unanswered: u.count)
    assert_in_delta 1.0, rate, 1e-12, "every request tried failed"
  end

  def test_unanswered_requests_add_to_the_requests_tried
    u = with_unanswered(result(requests: 196, ages: [2900.0] * 4))
    assert_in_delta 4.0 / 200, Rackbench::Runner::Errors.error_rate(4, 196, u.errors, unanswered: u.count), 1e-12
  end

  def test_unknown_waits_change_nothing_when_answers_came
    u = with_unanswered(result(requests: 196, ages: nil))
    assert_equal 0, u.count
    assert_equal 0, u.errors["timeout"]
  end
end
