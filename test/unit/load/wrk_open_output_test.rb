# frozen_string_literal: true

require "test_helper"
require "rackbench/load/wrk_open_output"
require_relative "../../support/fixture_files"

# Fixtures are real wrk 4.1.0 runs of wrk/open_loop.lua;
# test/fixtures/wrk_open/README.md says how each was recorded.
class WrkOpenOutputTest < Minitest::Test
  include FixtureFiles

  FIXTURES = File.expand_path("../../fixtures/wrk_open", __dir__)
  WrkOpenOutput = Rackbench::Load::WrkOpenOutput

  def test_healthy_run
    result = parse("ok.txt", command: %w[wrk -c 2])
    assert_equal "wrk-open", result.engine
    assert_equal "open", result.loop
    assert result.open_loop?
    assert_equal %w[wrk -c 2], result.command
    assert_equal 75, result.requests
    assert_in_delta 1.5, result.duration_s
    assert_equal 7050, result.bytes
    assert_in_delta 50.0, result.target_rate
    assert_in_delta 50.0, result.achieved_rate
    assert_in_delta 50.0, result.rps
    assert_equal [2, 75, 0, 0], [result.connections, result.planned, result.in_flight, result.unsent]
    assert_equal 0, result.error_total
    assert result.valid?
    assert_nil result.invalid_reason
  end

  def test_latency_and_service_time_in_milliseconds
    result = parse("ok.txt")
    assert_equal WrkOpenOutput::LATENCY_KEYS, result.latency_ms.keys
    assert_equal WrkOpenOutput::LATENCY_KEYS, result.service_ms.keys
    assert_in_delta 1.082368, result.latency_ms["p50"], 1e-9
    assert_in_delta 3.523306, result.latency_ms["max"], 1e-9
    assert_in_delta 1.063936, result.service_ms["p50"], 1e-9
    [result.latency_ms, result.service_ms].each do |figures|
      ordered = figures.values_at("min", "p50", "p75", "p90", "p99", "p99.9", "p99.99", "max")
      assert_equal ordered.sort, ordered
    end
  end

  def test_schedule_slip_in_milliseconds
    slip = parse("ok.txt").schedule_slip_ms
    assert_equal({ "sends" => 75, "late" => 0, "early" => 58, "queued" => 0 }, slip.slice(*%w[sends late early queued]))
    assert_in_delta 0.029666, slip["mean"], 1e-9
    assert_in_delta 0.733953, slip["max"], 1e-9
  end

  def test_a_stall_shows_in_latency_but_hardly_in_service_time
    result = parse("stall.txt")
    assert result.valid?, result.invalid_reason
    assert_equal 225, result.requests
    assert_equal 50, result.schedule_slip_ms["queued"], "50 sends (1 s at 50/s) waited for a connection"
    assert_in_delta 962.068480, result.latency_ms["p99"], 1e-9
    assert_in_delta 5.705728, result.service_ms["p99"], 1e-9
    assert_operator result.service_ms["max"], :>, 900, "the requests in flight during the stall"
  end

  def test_requests_unanswered_at_the_end_are_lower_bounds_and_make_the_trial_invalid
    result = parse("server_stopped_at_end.txt")
    assert_equal [75, 49, 2, 24], [result.planned, result.requests, result.in_flight, result.unsent]
    assert_in_delta 49 / 1.5, result.achieved_rate
    assert_in_delta 1000.066672, result.latency_ms["max"], 1e-9
    refute result.valid?
    assert_match(/\Aachieved 32\.7 req\/s, 65\.3% of the 50 req\/s target/, result.invalid_reason)
  end

  # The script lists each in-flight request's wait at the stop (ages in
  # us); recordings made before it did give nil: not known.
  def test_the_waits_of_requests_in_flight_at_the_end
    text = File.read(File.join(FIXTURES, "server_stopped_at_end.txt"))
    assert_nil WrkOpenOutput.parse(text).unanswered_ms
    with_ages = text.sub('"in_flight":2,', '"in_flight":2,"in_flight_age_us":[1000066,998001],')
    refute_equal text, with_ages
    assert_equal [1000.066, 998.001], WrkOpenOutput.parse(with_ages).unanswered_ms
  end

  def test_no_answer_at_all
    result = parse("server_stopped_throughout.txt")
    assert_equal 0, result.requests
    assert_equal [30, 2, 28], [result.planned, result.in_flight, result.unsent]
    assert_in_delta 529.992130, result.latency_ms["min"], 1e-9, "the last planned send's lower bound"
    assert_in_delta 0.0, result.rps
    refute result.valid?
  end

  def test_a_lagging_client_makes_the_trial_invalid
    result = parse("client_slip.txt")
    assert_in_delta 100.0, result.achieved_rate, 1e-9, "every request was answered"
    slip = result.schedule_slip_ms
    assert_equal({ "sends" => 131, "late" => 11, "early" => 80, "queued" => 19 }, slip.slice(*%w[sends late early queued]))
    assert_in_delta 3.594084, slip["mean"], 1e-9
    assert_in_delta 48.251578, slip["max"], 1e-9
    refute result.valid?
    assert_match(/fell behind its schedule: sends went out 3\.59 ms late on average/, result.invalid_reason)
  end

  def test_the_last_line_counts_and_closed_loop_lines_are_ignored
    text = "RACKBENCH_RESULT {}\n#{File.read(File.join(FIXTURES, 'server_stopped_throughout.txt'))}" \
           "#{File.read(File.join(FIXTURES, 'ok.txt'))}"
    assert_equal 75, WrkOpenOutput.parse(text).requests
  end

  def test_missing_or_garbled_lines_raise
    error = assert_raises(Rackbench::Error) { WrkOpenOutput.parse("Running 2s test\n") }
    assert_match(/no RACKBENCH_OPEN line/, error.message)
    assert_raises(Rackbench::Error) { WrkOpenOutput.parse("RACKBENCH_OPEN {\"target_rate\":\n") }
    line = File.read(File.join(FIXTURES, "ok.txt"))[/^RACKBENCH_OPEN .*$/]
    error = assert_raises(Rackbench::Error) { WrkOpenOutput.parse(line.sub('"planned":75', '"planned":-1')) }
    assert_match(/planned=-1/, error.message)
    error = assert_raises(Rackbench::Error) { WrkOpenOutput.parse(line.sub('"p99.99":', '"p99_99":')) }
    assert_match(/no latency_us p99\.99/, error.message)
  end

  private

  def parse(name, command: nil)
    WrkOpenOutput.parse(fixture(name), command: command)
  end
end
