# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "rackbench/process_control/stop"
require "rackbench/process_control/child"

# Stop: the graceful signal to each target in turn, one deadline for all of
# them, KILL to the survivors, a short reap; and Child#stop as one Stop, at
# most its timeout + Stop::KILL_REAP seconds.
class StopTest < Minitest::Test
  include Rackbench::Waits

  Stop = Rackbench::ProcessControl::Stop
  Child = Rackbench::ProcessControl::Child
  Tree = Rackbench::System::ProcessTree

  # A target that goes when told: after the graceful signal once its
  # delay has passed (never: nil), at once on KILL.
  class Fake
    attr_reader :got

    def initialize(log, name, goes_after: 0)
      @log = log
      @name = name
      @goes_after = goes_after
      @got = []
    end

    def signal(sig)
      @log << [@name, sig]
      @got << sig
      @at = Rackbench::Clock.now
    end

    def gone?
      return true if @got.include?("KILL")

      !@at.nil? && !@goes_after.nil? && Rackbench::Clock.now - @at >= @goes_after
    end
  end

  def test_targets_get_the_signal_in_turn_each_once_the_one_before_is_gone
    log = []
    first = Fake.new(log, :group, goes_after: 0.05)
    second = Fake.new(log, :escaped)
    assert_empty Stop.new("QUIT", timeout: 5, every: 0.01).call(first, second)
    assert_equal [[:group, "QUIT"], [:escaped, "QUIT"]], log
  end

  def test_one_deadline_for_all_then_kill_to_every_survivor
    log = []
    stubborn = Fake.new(log, :group, goes_after: nil)
    escaped = Fake.new(log, :escaped, goes_after: nil)
    started = Rackbench::Clock.now
    survivors = Stop.new("TERM", timeout: 0.3, every: 0.01).call(stubborn, escaped)
    took = Rackbench::Clock.now - started
    assert_equal [stubborn, escaped], survivors
    assert_equal %w[TERM KILL], stubborn.got
    assert_equal %w[TERM KILL], escaped.got, "the second target waited on the same deadline, not one of its own"
    assert_operator took, :<, 0.3 + 0.25, "one deadline, not one per target"
  end

  def test_a_target_already_gone_gets_no_signal
    log = []
    gone = Fake.new(log, :gone)
    gone.signal("TERM")
    log.clear
    assert_empty Stop.new("TERM", timeout: 1).call(gone)
    assert_empty log
  end

  # The worst case Child#stop had before issue 45: a leader and a worker
  # that ignore the graceful signal, and a descendant that left the group
  # and ignores it too. Now one deadline for all three, then KILL.
  STUBBORN = <<~'RUBY'
    trap("TERM") {}
    fork { trap("TERM") {}; $0 = "rackbench-stop-worker"; sleep 60 }
    fork { Process.setsid; trap("TERM") {}; $0 = "rackbench-stop-escaped"; sleep 60 }
    $stdout.puts "ready"
    $stdout.flush
    sleep 60
  RUBY

  def test_child_stop_takes_its_timeout_and_a_short_kill_reap_at_most
    child = Child.spawn([RbConfig.ruby, "--disable-gems", "-e", STUBBORN], env: { "RUBYOPT" => nil },
                                                                          log_path: File.join(tmpdir, "child.log"))
    family = wait_until(deadline: 30, what: "the leader, its worker and the escaped descendant") do
      File.read(child.log_path).include?("ready") && (found = Tree.tree(child.pid)).size == 3 && found
    end
    assert_equal 1, family.count { |e| e.pgid != child.pid }, "one descendant left the group"
    started = Rackbench::Clock.now
    child.stop("TERM", timeout: 0.5)
    took = Rackbench::Clock.now - started
    assert_operator took, :<, 0.5 + Stop::KILL_REAP, "timeout + KILL_REAP at most (was 2 x timeout + 8 s)"
    assert child.forced?, "the group had to be KILLed"
    assert_equal "killed by SIGKILL", child.exit_summary
    assert_empty family.select { |e| Tree.alive?(e) }, "nothing outlives the stop"
  end

  def test_child_stop_of_a_polite_child_is_not_forced
    child = Child.spawn(["sleep", "30"], log_path: File::NULL)
    started = Rackbench::Clock.now
    child.stop("TERM", timeout: 5)
    assert_operator Rackbench::Clock.now - started, :<, 2
    refute child.forced?
    assert_equal "killed by SIGTERM", child.exit_summary
  end

  def test_processes_found_in_proc_are_stopped_and_said
    child = Child.spawn(["sleep", "30"], log_path: File::NULL)
    entry = wait_until(deadline: 10, what: "the sleep in /proc") { Tree.read_stat(child.pid) }
    assert_match(/\A#{child.pid} sleep 30\z/, Stop.describe([entry]))
    assert_equal [entry], Stop.processes([entry], timeout: 2)
    wait_until(deadline: 5, what: "the sleep reaped") { !child.alive? }
    assert_equal "killed by SIGTERM", child.exit_summary
  ensure
    child&.stop("KILL", timeout: 1)
  end
end
