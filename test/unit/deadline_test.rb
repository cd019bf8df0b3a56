# frozen_string_literal: true

require "test_helper"
require "rackbench/deadline"

# Deadline: a frozen moment on the monotonic clock, with what is left of it,
# whether it is over, and a bounded wait.
class DeadlineTest < Minitest::Test
  Deadline = Rackbench::Deadline
  Clock = Rackbench::Clock

  def test_in_seconds_from_now_on_the_monotonic_clock
    before = Clock.now
    deadline = Deadline.in(5)
    assert_operator deadline.at, :>=, before + 5
    assert_operator deadline.at, :<=, Clock.now + 5
  end

  def test_a_frozen_value
    deadline = Deadline.in(1)
    assert_predicate deadline, :frozen?
    assert_raises(FrozenError) { deadline.instance_variable_set(:@at, 0.0) }
  end

  def test_left_counts_down_and_never_goes_below_zero
    left = Deadline.in(5).left
    assert_operator left, :>, 4
    assert_operator left, :<=, 5
    assert_equal 0.0, Deadline.in(-1).left
  end

  def test_over_once_passed
    refute_predicate Deadline.in(5), :over?
    assert_predicate Deadline.in(-0.001), :over?
  end

  def test_wait_until_returns_the_blocks_first_true_value
    calls = 0
    assert_equal :ready, Deadline.in(5).wait_until(every: 0) { (calls += 1) == 3 && :ready }
    assert_equal 3, calls
  end

  def test_wait_until_returns_nil_at_the_deadline_having_polled_meanwhile
    calls = 0
    started = Clock.now
    assert_nil Deadline.in(0.2).wait_until(every: 0.05) { (calls += 1) && false }
    assert_operator Clock.now - started, :>=, 0.2
    assert_operator Clock.now - started, :<, 5
    assert_operator calls, :>=, 2, "polled, not waited out in one sleep"
  end

  def test_a_past_deadline_still_tries_once
    calls = 0
    assert_nil Deadline.in(-1).wait_until(every: 1) { (calls += 1) && false }
    assert_equal 1, calls
  end

  def test_the_later_of_two_is_their_max
    soon = Deadline.in(1)
    later = Deadline.in(10)
    assert_same later, [soon, later].max
    assert_operator soon, :<, later
  end
end
