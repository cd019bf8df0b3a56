# frozen_string_literal: true

require "test_helper"
require "rackbench/clock"

# Clock.wait_until: the one poll-until-deadline loop of lib/.
class ClockTest < Minitest::Test
  Clock = Rackbench::Clock

  def test_returns_the_blocks_first_true_value
    calls = 0
    assert_equal :ready, Clock.wait_until(Clock.now + 5, every: 0) { (calls += 1) == 3 && :ready }
    assert_equal 3, calls
  end

  def test_a_condition_already_met_returns_at_once_without_sleeping
    started = Clock.now
    assert Clock.wait_until(Clock.now + 5, every: 10) { true }
    assert_operator Clock.now - started, :<, 1
  end

  def test_false_once_the_deadline_has_passed_sleeping_every_seconds_between_tries
    calls = 0
    started = Clock.now
    assert_equal false, Clock.wait_until(Clock.now + 0.25, every: 0.1) { (calls += 1) && nil }
    waited = Clock.now - started
    assert_operator waited, :>=, 0.25
    assert_operator waited, :<, 5
    assert_includes 2..4, calls, "tried at 0, 0.1, 0.2 and 0.3 s (fewer when a sleep overran)"
  end

  def test_tries_once_more_after_the_last_sleep
    tries = []
    deadline = Clock.now + 0.05
    Clock.wait_until(deadline, every: 0.2) { tries << Clock.now && false }
    assert_equal 2, tries.size, "once before the sleep, once after it (past the deadline)"
    assert_operator tries.last, :>, deadline
  end

  def test_a_past_deadline_still_tries_once
    calls = 0
    assert_equal false, Clock.wait_until(Clock.now - 1, every: 1) { (calls += 1) && false }
    assert_equal 1, calls
  end

  def test_the_block_may_raise_to_end_the_wait
    assert_raises(RuntimeError) { Clock.wait_until(Clock.now + 5, every: 0.01) { raise "exited" } }
  end
end
