# frozen_string_literal: true

require "test_helper"
require "rackbench/report/failures"
require "rackbench/runner/verify"
require "rackbench/runner/endpoint_failures"

# What a run could not measure: failed setups (latest attempt), failed and
# skipped endpoints unless a later attempt measured them.
class FailuresTest < Minitest::Test
  def ok(setup) = { "setup" => setup, "repetition" => 1, "status" => "ok" }

  def endpoint(setup, status, path = "/missing")
    { "setup" => setup, "repetition" => 1, "endpoint" => path, "status" => status, "reason" => "why #{setup}" }
  end

  def test_an_endpoint_failure_fails_the_run_and_its_skips_are_listed_once
    rows = [ok("a"), endpoint("a", "failed"), endpoint("b", "skipped"), ok("b"), endpoint("c", "skipped")]
    f = Rackbench::Report::Failures.new(rows, [{ "setup" => "a", "endpoint" => "/", "repetition" => 1 }])
    assert f.any?
    assert_empty f.setups, "the setups ran: their last line is not a setup failure"
    assert_equal ["FAILED /missing on a (repetition 1): why a", "SKIPPED /missing on b, c: why b"], f.lines
  end

  def test_a_later_attempt_that_measured_the_endpoint_clears_it
    rows = [ok("a"), endpoint("a", "failed"), ok("a")]
    f = Rackbench::Report::Failures.new(rows, [{ "setup" => "a", "endpoint" => "/missing", "repetition" => 1 }])
    refute f.any?
    assert_empty f.lines
  end

  def test_a_setup_failure_counts_by_its_latest_attempt
    failed = { "setup" => "a", "repetition" => 1, "status" => "failed", "reason" => "boot" }
    assert_equal ["FAILED a (repetition 1): boot"], Rackbench::Report::Failures.new([failed], []).lines
    refute Rackbench::Report::Failures.new([failed, ok("a")], []).any?
  end

  # Only the app's answers (a redirect, a 4xx) are kept for the other setups.
  def test_only_the_apps_answers_are_known_for_the_other_setups
    known = Rackbench::Runner::EndpointFailures.new
    failed = ->(status) { Rackbench::Runner::Verify::Failed.new("verification of /x failed", endpoint: "/x", status: status) }
    known.add("/x", failed.call(500), "puma x1:1")
    known.add("/y", failed.call(nil), "puma x1:1")
    assert_nil known["/x"]
    assert_nil known["/y"]
    known.add("/x", failed.call(404), "puma x1:1")
    known.add("/x", failed.call(301), "thin")
    assert_equal ["puma x1:1", 404], [known["/x"].setup, known["/x"].status], "the first setup to find it decides"
    assert known.warning_once(known["/x"])
    assert_nil known.warning_once(known["/x"])
  end
end
