# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/trial_record"
require "rackbench/load/result"

# Who fell behind in an invalid open-loop trial, from what each side measured:
# the client's send lateness, the server's answers to what it was sent.
class TrialRecordBehindTest < Minitest::Test
  TrialRecord = Rackbench::Runner::TrialRecord

  LATE = { "mean" => 3.6, "max" => 40.0, "sends" => 600, "late" => 30, "early" => 0, "queued" => 0 }.freeze
  ON_TIME = { "mean" => 0.2, "max" => 2.0, "sends" => 600, "late" => 0, "early" => 0, "queued" => 0 }.freeze

  def result(slip:, completed:, in_flight:, unsent: 0, valid: false)
    Rackbench::Load::Result.new(engine: "wrk-open", requests: completed, duration_s: 2.0, loop: "open", target_rate: 300.0,
                                achieved_rate: completed / 2.0, planned: completed + in_flight + unsent,
                                in_flight: in_flight, unsent: unsent, schedule_slip_ms: slip, valid: valid)
  end

  def test_a_late_client_whose_sends_were_all_answered_is_the_client
    assert_equal "client", TrialRecord.behind(result(slip: LATE, completed: 540, in_flight: 2, unsent: 58)),
                 "the 58 never sent are the client's; the server answered 540 of 542"
  end

  def test_a_late_client_and_a_server_that_left_its_sends_unanswered_is_both
    assert_equal "both", TrialRecord.behind(result(slip: LATE, completed: 400, in_flight: 150, unsent: 50)),
                 "150 of 550 sent were unanswered: the server fell behind too"
  end

  def test_a_client_on_time_leaves_the_server
    assert_equal "server", TrialRecord.behind(result(slip: ON_TIME, completed: 400, in_flight: 200))
    assert_nil TrialRecord.behind(result(slip: LATE, completed: 600, in_flight: 0, valid: true))
  end

  def test_the_servers_shortfall_in_words
    assert_nil Rackbench::Load::OpenLoopValidity.server_lag(completed: 594, in_flight: 6)
    assert_equal "the server left 7 of the 600 requests sent unanswered (1.2%)",
                 Rackbench::Load::OpenLoopValidity.server_lag(completed: 593, in_flight: 7)
  end
end
