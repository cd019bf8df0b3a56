# frozen_string_literal: true

require "test_helper"
require "support/staller"
require "rackbench/process_control/child"
require "rackbench/system/process_tree"
require "rackbench/clock"

# The staller against a small real process tree (sh with two sleeping
# children, started through ProcessControl::Child): stopped during a pause,
# running after it, and never left stopped.
class StallerTest < Minitest::Test
  Staller = Rackbench::Workload::Staller

  def setup
    @child = Rackbench::ProcessControl::Child.spawn(["sh", "-c", "sleep 30 & sleep 30 & wait"])
    deadline = Rackbench::Clock.now + 5
    sleep 0.01 until tree.size == 3 || Rackbench::Clock.now > deadline
    assert_equal 3, tree.size, "sh and its two sleeps"
  end

  def teardown
    @staller&.stop
    @child&.stop("TERM", timeout: 2)
    super
  end

  # A signal takes effect when its process next runs, and the staller's
  # thread may wake late on a busy machine: states are polled until they
  # settle (2 s at most), and the period is long enough for one stall only.
  def test_stops_the_whole_tree_for_the_pause_then_continues_it
    @staller = Staller.new(@child.pid, every: 30, pause: 1.0, first_after: 0.1).start
    assert_equal %w[T T T], states_until { |s| s == %w[T T T] }, "all stopped during the pause"
    assert @staller.stalled?
    after = states_until { |s| s.size == 3 && s.grep("T").empty? }
    assert_empty after.grep("T"), "all continued after it (S or R: a process just woken may be running)"
    stalls = @staller.stop
    assert_equal 1, stalls.size
    assert_operator stalls.first.ended_at - stalls.first.started_at, :>=, 1.0, "the pause lasts at least its length"
    assert_equal tree.sort, stalls.first.pids.sort
  end

  def test_stop_during_a_pause_continues_everything
    @staller = Staller.new(@child.pid, every: 10, pause: 5, first_after: 0.05).start
    assert_equal %w[T T T], states_until { |s| s == %w[T T T] }
    started = Rackbench::Clock.now
    @staller.stop
    assert_operator Rackbench::Clock.now - started, :<, 2, "stop does not wait for the 5 s pause to end"
    after = states_until { |s| s.size == 3 && s.grep("T").empty? }
    assert_empty after.grep("T"), "all continued (S or R)"
    refute @staller.stalled?
  end

  def test_repeats_every_period
    @staller = Staller.new(@child.pid, every: 0.2, pause: 0.05, first_after: 0.05).start
    deadline = Rackbench::Clock.now + 5
    sleep 0.05 until @staller.stalls.size >= 2 || Rackbench::Clock.now > deadline
    assert_operator @staller.stop.size, :>=, 2, "a stall every 0.2 s"
    assert_empty states_until { |s| s.size == 3 && s.grep("T").empty? }.grep("T"), "none left stopped"
  end

  def test_pause_must_fit_the_period
    assert_raises(Rackbench::UsageError) { Staller.new(1, every: 1, pause: 1) }
    assert_raises(Rackbench::UsageError) { Staller.new(1, every: 1, pause: 0) }
  end

  private

  def tree
    Rackbench::System::ProcessTree.tree(@child.pid).map(&:pid)
  end

  # The states once the block accepts them, or the last read after 2 s.
  def states_until
    deadline = Rackbench::Clock.now + 5
    loop do
      now = states
      return now if yield(now) || Rackbench::Clock.now > deadline

      sleep 0.01
    end
  end

  def states
    tree.map { |pid| File.read("/proc/#{pid}/stat").then { |raw| raw[raw.rindex(")") + 2] } }
  end
end
