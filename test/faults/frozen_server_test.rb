# frozen_string_literal: true

require_relative "fault_helper"

# A server frozen by SIGSTOP during a trial answers nothing meanwhile: the
# trial must say so, not store the pause as the server's own latency.
class FaultFrozenServerTest < Minitest::Test
  def test_a_server_stopped_during_a_trial_is_flagged_on_the_trial
    out = File.join(tmpdir, "run")
    start_rackbench("run", "-s", "puma x1:2", "-e", "/pause/0.05", "-c", "2", "-d", "3", "--warmup", "0", "-o", out)
    puma = nil
    # The server's process, found once wrk loads it (Puma names itself
    # "puma VERSION (...)" when it boots; looked for until then).
    @rb.wait_until do
      kids = @rb.descendants
      puma = kids.find { |e| e.comm != "wrk" && Rackbench::System::ProcessTree.cmdline(e.pid).start_with?("puma") }
      puma && @rb.load_running?
    end
    refute_nil puma, "the server is running"
    sleep 0.5
    Process.kill("STOP", puma.pid)
    sleep 1
    Process.kill("CONT", puma.pid)
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 1,
                         message: %r{\Awarning: puma x1:2 /pause/0\.05 c=2: server process\(es\) #{puma.pid} were stopped \(SIGSTOP or a debugger\)})
    trial = read_trials(out).first
    assert_equal [puma.pid], trial.dig("processes", "stopped_pids")
    assert(trial["warnings"].any? { |w| w.include?("were stopped (SIGSTOP or a debugger) during the trial") }, trial["warnings"].inspect)
    assert_match(/were stopped \(SIGSTOP/, File.read(File.join(out, "warnings.jsonl")))
  ensure
    Process.kill("CONT", puma.pid) if puma && Rackbench::System::ProcessTree.alive?(puma)
  end

  # rackbench itself stopped during a trial (SIGSTOP, a debugger): its
  # sampler missed most ticks, and the trial says so instead of passing a
  # few samples off as the trial's CPU and memory.
  def test_rackbench_stopped_during_a_trial_is_flagged_on_the_trial
    out = File.join(tmpdir, "run")
    start_rackbench("run", "-s", "puma x1:2", "-e", "/pause/0.05", "-c", "2", "-d", "3", "--warmup", "0", "-o", out)
    @rb.wait_until { @rb.load_running? }
    sleep 0.3
    @rb.signal("STOP")
    sleep 1.6
    @rb.signal("CONT")
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 1,
                         message: %r{\Awarning: puma x1:2 /pause/0\.05 c=2: rackbench's process sampler missed \d+ of \d+ ticks .*itself was stopped})
    trial = read_trials(out).first
    missed = trial.dig("sampler", "missed_ticks")
    assert_operator missed.fdiv(missed + trial.dig("sampler", "samples")), :>, 0.2, trial["sampler"].inspect
    assert(trial["warnings"].any? { |w| w.match?(/sampler missed #{missed} of \d+ ticks .*rackbench itself was stopped/) },
           trial["warnings"].inspect)
    assert_match(/rackbench itself was stopped/, File.read(File.join(out, "warnings.jsonl")))
  ensure
    @rb&.signal("CONT") unless @rb&.exited?
  end
end
