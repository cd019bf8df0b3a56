# frozen_string_literal: true

require_relative "../faults/fault_helper"
require "rackbench/system/process_tree"

# Real signals sent to a real rackbench: Ctrl-C pressed again during a slow
# graceful stop, and an interrupted `capacity` and `tune` (which share the
# CLI's interrupt guard with `run`).
class InterruptEscalationTest < Minitest::Test
  def running?(program)
    Rackbench::System::ProcessTree.tree(@rb.pid).any? do |e|
      e.pid != @rb.pid && Rackbench::System::ProcessTree.cmdline(e.pid).to_s.match?(program)
    end
  end

  # What a terminal does on Ctrl-C: SIGINT to the foreground process group
  # (nothing to do once rackbench has exited).
  def ctrl_c
    Process.kill("INT", -@rb.pid)
  rescue Errno::ESRCH
    nil
  end

  # Puma's graceful stop (TERM) lets a worker finish the request it is
  # serving; here that request sleeps 30 s, so the stop would take ~30 s
  # (--stop-timeout 60 keeps rackbench from killing it sooner).
  def test_ctrl_c_pressed_again_during_a_slow_graceful_stop_kills_every_process_group
    out = File.join(tmpdir, "run")
    start_rackbench("run", "-s", "puma x2:1", "-e", "/pause/30", "-c", "1", "-d", "5", "--warmup", "0", "--no-verify",
                    "--stop-timeout", "60", "-o", out)
    @rb.wait_until { running?(%r{\Awrk .*http://}) }
    sleep 0.5 # wrk's request reaches the worker
    ctrl_c
    @rb.wait_until(timeout: 10) { @rb.stderr.include?("SIGINT: stopping the servers gracefully") }
    sleep 1.5
    refute @rb.exited?, "the graceful stop waits for the 30 s request; stderr: #{@rb.stderr}"
    assert running?(/puma.*worker/), "a worker is still serving it"

    pressed = Rackbench::Clock.now
    ctrl_c # twice more, as an impatient user does (the third finds it gone)
    sleep 1
    ctrl_c
    @rb.wait(timeout: 20)
    assert_operator Rackbench::Clock.now - pressed, :<, 3, "killed at once, not after the request; stderr: #{@rb.stderr}"
    assert_fault_outcome(exit_code: 130, message: /\AInterrupted by SIGINT: servers stopped$/)
    assert_includes @rb.stderr, "SIGINT again: killing every process rackbench started"
  end

  # A helper in thin's group ignores TERM: thin exits at the graceful stop
  # and is reaped, the helper stays, and the stop waits out --stop-timeout.
  # Ctrl-C again KILLs the group all the same (it was skipped once its
  # leader was reaped, and the helper outlived rackbench).
  def test_ctrl_c_again_kills_a_group_whose_leader_is_already_gone
    app = File.expand_path("../fixtures/apps/stubborn", __dir__)
    start_rackbench("run", "--app", app, "-s", "thin", "-e", "/", "-c", "1", "-d", "5", "--warmup", "0",
                    "--stop-timeout", "30", "-o", File.join(tmpdir, "run"))
    @rb.wait_until(timeout: 60) { running?(%r{\Awrk .*http://}) }
    helper = nil
    @rb.wait_until(timeout: 10) { helper = Rackbench::System::ProcessTree.all.find { |e| Rackbench::System::ProcessTree.cmdline(e.pid).start_with?("rackbench-stubborn-helper") } }
    # Named only once its traps are set ($0 follows them in the script; the raw command line, which holds the
    # same words inside -e, does not start with them).
    sleep 0.2
    refute_nil helper, "the app started its helper: #{Rackbench::System::ProcessTree.tree(@rb.pid).map { |e| Rackbench::System::ProcessTree.cmdline(e.pid)[0, 50] }}"
    ctrl_c
    @rb.wait_until(timeout: 10) { @rb.stderr.include?("SIGINT: stopping the servers gracefully") }
    sleep 1.5
    assert Rackbench::System::ProcessTree.alive?(helper), "the helper ignored TERM"
    pressed = Rackbench::Clock.now
    ctrl_c
    @rb.wait(timeout: 30)
    assert_operator Rackbench::Clock.now - pressed, :<, 5, "killed at once, not after --stop-timeout; stderr: #{@rb.stderr}"
    refute Rackbench::System::ProcessTree.alive?(helper), "the helper in thin's group was killed"
    assert_equal 130, @rb.exit_code
  ensure
    Process.kill("KILL", helper.pid) if helper && Rackbench::System::ProcessTree.alive?(helper)
  end

  def test_capacity_interrupted_exits_130_with_nothing_left_running
    out = File.join(tmpdir, "cap")
    start_rackbench("capacity", "-s", "puma x1:2", "-e", "/pause/0.05", "--loop", "closed", "-d", "1", "--warmup", "0",
                    "--max-levels", "4", "-o", out)
    @rb.wait_until(timeout: 90) { read_trials(out).size == 1 && running?(%r{\Awrk .*http://}) }
    ctrl_c
    assert_fault_outcome(exit_code: 130, run_dir: out, min_trials: 1,
                         message: /\AInterrupted by SIGINT: servers stopped; completed trials are kept in .*cap \(rackbench report .*cap shows them\)$/)
    assert_equal 1, read_trials(out).size, "the level under way when the signal came is not stored"
  end

  def test_tune_interrupted_exits_130_with_nothing_left_running
    out = File.join(tmpdir, "tune")
    start_rackbench("tune", "--servers", "puma", "--memory-budget", "1GiB", "--slo-p99", "500ms", "-e", "/pause/0.05",
                    "--time-budget", "60s", "-o", out)
    @rb.wait_until(timeout: 90) { read_trials(out).size == 1 && running?(%r{\Awrk .*http://}) }
    ctrl_c
    assert_fault_outcome(exit_code: 130, run_dir: out, min_trials: 1,
                         message: /\AInterrupted by SIGINT: servers stopped; completed trials are kept in .*tune \(rackbench report .*tune shows them\)$/)
    refute_path_exists File.join(out, "recommendation.json"), "no recommendation from an interrupted search"
  end
end
