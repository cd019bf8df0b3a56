# frozen_string_literal: true

require "test_helper"
require "rackbench/load/open_loop_validity"

class OpenLoopValidityTest < Minitest::Test
  Validity = Rackbench::Load::OpenLoopValidity
  STEADY = { "mean" => 0.1, "max" => 3.0, "sends" => 1000, "late" => 0, "early" => 600, "queued" => 0 }.freeze

  def test_on_schedule_is_valid
    assert_equal [true, nil], check(achieved: 50.0)
  end

  def test_achieved_rate_must_reach_99_percent_of_the_target
    assert_equal [true, nil], check(achieved: 49.5)
    valid, reason = check(achieved: 49.4)
    refute valid
    assert_equal "achieved 49.4 req/s, 98.8% of the 50 req/s target (below 99%): the server did not answer every " \
                 "planned request before wrk stopped; lower the rate or check the server's errors", reason
  end

  def test_mean_slip_above_one_millisecond_is_invalid
    assert_equal [true, nil], check(slip: STEADY.merge("mean" => 1.0))
    valid, reason = check(slip: STEADY.merge("mean" => 1.5))
    refute valid
    assert_match(/1\.50 ms late on average \(limit 1\.0 ms\)/, reason)
  end

  def test_more_than_one_percent_of_sends_over_10_ms_late_is_invalid
    assert_equal [true, nil], check(slip: STEADY.merge("late" => 10, "max" => 80.0)), "1% is tolerated"
    valid, reason = check(slip: STEADY.merge("late" => 12))
    refute valid
    assert_match(/1\.1% over 10 ms late \(limit 1%; the single latest send not counted\)/, reason)
  end

  # 25 req/s for 2 s: 50 sends, one of them late while wrk started its
  # threads. One in 50 is 2%, but a single late send is tolerated.
  def test_a_single_late_send_of_a_short_trial_is_tolerated
    short = { "sends" => 50, "mean" => 40.0 / 50, "max" => 40.0, "late" => 1, "early" => 0, "queued" => 0 }
    assert_equal [true, nil], check(slip: short)
    refute check(slip: short.merge("late" => 2, "mean" => 80.0 / 50))[0], "two are not"
  end

  def test_no_free_send_means_no_slip_verdict
    assert_equal [true, nil], check(slip: STEADY.merge("sends" => 0, "mean" => 0.0))
  end

  def test_the_rate_reason_comes_first
    _, reason = check(achieved: 10.0, slip: STEADY.merge("mean" => 5.0))
    assert_match(/\Aachieved 10\.0 req\/s/, reason)
  end

  private

  def check(achieved: 50.0, slip: STEADY)
    Validity.check(target_rate: 50.0, achieved_rate: achieved, slip: slip)
  end
end
