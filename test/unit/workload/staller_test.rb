# frozen_string_literal: true

require "test_helper"
require "support/staller"
require "rackbench/process/child"
require "rackbench/sampling/process_tree"
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

  def test_stops_the_whole_tree_for_the_pause_then_continues_it
    @staller = Staller.new(@child.pid, every: 0.6, pause: 0.3, first_after: 0.1).start
    sleep 0.25
    assert_equal %w[T T T], states, "all stopped during the pause"
    assert @staller.stalled?
    sleep 0.3
    assert_equal 3, states.size
    assert_empty states.grep("T"), "all continued after it (S or R: a process just woken may be running)"
    stalls = @staller.stop
    assert_equal 1, stalls.size
    assert_in_delta 0.3, stalls.first.ended_at - stalls.first.started_at, 0.05
    assert_equal tree.sort, stalls.first.pids.sort
  end

  def test_stop_during_a_pause_continues_everything
    @staller = Staller.new(@child.pid, every: 10, pause: 5, first_after: 0.05).start
    sleep 0.2
    assert_equal %w[T T T], states
    started = Rackbench::Clock.now
    @staller.stop
    assert_operator Rackbench::Clock.now - started, :<, 0.5, "stop does not wait for the pause to end"
    assert_equal 3, states.size
    assert_empty states.grep("T"), "all continued (S or R)"
    refute @staller.stalled?
  end

  def test_repeats_every_period
    @staller = Staller.new(@child.pid, every: 0.2, pause: 0.05, first_after: 0.05).start
    sleep 0.5
    assert_includes [2, 3], @staller.stop.size
    assert_equal %w[S S S], states
  end

  def test_pause_must_fit_the_period
    assert_raises(Rackbench::UsageError) { Staller.new(1, every: 1, pause: 1) }
    assert_raises(Rackbench::UsageError) { Staller.new(1, every: 1, pause: 0) }
  end

  private

  def tree
    Rackbench::Sampling::ProcessTree.tree(@child.pid).map(&:pid)
  end

  def states
    tree.map { |pid| File.read("/proc/#{pid}/stat").then { |raw| raw[raw.rindex(")") + 2] } }
  end
end
