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
end
