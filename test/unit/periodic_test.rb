# frozen_string_literal: true

require "test_helper"
require "rackbench/periodic"
require "rackbench/clock"

class PeriodicTest < Minitest::Test
  def test_runs_the_block_until_stopped_and_stop_does_not_wait_out_the_interval
    runs = 0
    p = Rackbench::Periodic.new(30) { runs += 1 }.start
    deadline = Rackbench::Clock.now + 5
    sleep 0.01 until runs.positive? || Rackbench::Clock.now > deadline
    started = Rackbench::Clock.now
    p.stop
    assert_operator Rackbench::Clock.now - started, :<, 2, "woken at once, not after 30 s"
    assert_equal 1, runs, "the first run is at once, the next would be 30 s later"
  end

  def test_repeats_on_its_interval
    runs = 0
    p = Rackbench::Periodic.new(0.01) { runs += 1 }.start
    deadline = Rackbench::Clock.now + 5
    sleep 0.01 until runs >= 3 || Rackbench::Clock.now > deadline
    p.stop
    after = runs
    sleep 0.05
    assert_operator after, :>=, 3
    assert_equal after, runs, "nothing runs after stop"
  end

  def test_rejects_a_bad_interval
    assert_raises(ArgumentError) { Rackbench::Periodic.new(0) { nil } }
  end

  # A block slower than the interval skips the ticks it overran (counted),
  # rather than running them in a burst afterwards.
  def test_ticks_missed_by_a_slow_block_are_skipped_and_counted
    runs = 0
    t0 = Rackbench::Clock.now
    p = Rackbench::Periodic.new(0.02) do
      runs += 1
      sleep 0.11 if runs == 1
    end.start
    sleep 0.2
    p.stop
    ran = Rackbench::Clock.now - t0 # however late sleep woke: the ticks due by then bound the runs
    assert_operator p.missed, :>=, 4, "0.11 s overran at least 4 ticks of 0.02 s"
    due = 1 + ((ran - 0.12) / 0.02).floor + 1
    assert_operator runs, :<=, due + 1, "no burst: the ticks due in #{ran.round(3)} s after the overrun (a burst runs the 4 skipped too)"
  end

  def test_after_runs_once_on_the_thread_when_stopped_and_its_cpu_is_measured
    threads = []
    p = Rackbench::Periodic.new(0.01, after: -> { threads << [:after, Thread.current] }) do
      threads << [:tick, Thread.current]
      x = 0
      200_000.times { x += 1 } # some CPU on the loop's own thread
    end.start
    sleep 0.1
    p.stop
    assert_equal [:after], threads.map(&:first).select { |k| k == :after }
    assert_equal :after, threads.last.first, "after is the last thing the thread runs"
    assert_equal 1, threads.map(&:last).uniq.size, "ticks and after share one thread"
    refute_equal Thread.current, threads.last.last
    assert_operator p.cpu_seconds, :>, 0.0
    assert_operator p.cpu_seconds, :<, 1.0
  end

  def test_start_at_a_past_time_counts_the_ticks_already_gone
    p = Rackbench::Periodic.new(0.05) { nil }.start(at: Rackbench::Clock.now - 0.5)
    sleep 0.02
    p.stop
    assert_operator p.missed, :>=, 9, "the schedule runs from at:, so 0.5 s ago is 10 ticks back"
  end

  def test_stop_within_kills_a_block_that_does_not_finish
    p = Rackbench::Periodic.new(1) { sleep 30 }.start
    sleep 0.05
    started = Rackbench::Clock.now
    p.stop(within: 0.2)
    assert_operator Rackbench::Clock.now - started, :<, 2, "not the block's 30 s"
    refute p.running?
  end
end
