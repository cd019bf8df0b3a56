# frozen_string_literal: true

require_relative "fault_helper"

# rackbench killed by SIGKILL runs no cleanup at all: its servers, nginx and
# wrk keep running and listening. The next --resume (and rackbench doctor)
# must find those survivors from the run directory's journal, prove they
# are the same processes, stop them, and say so.
class FaultKilledRunTest < Minitest::Test
  # Whichever setup its random round order boots first is left running.
  RUN = ["-s", "puma x2:2", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "2,4", "-d", "1", "--warmup", "0"].freeze

  def kill_mid_run(out)
    killed = start_rackbench("run", *RUN, "-o", out)
    killed.wait_until { read_trials(out).size >= 1 }
    killed.signal("KILL")
    killed.wait
    refute_empty killed.survivors, "SIGKILL leaves the server running (the problem this fixes)"
    refute_empty killed.listening_ports, "and listening"
    killed
  end

  def test_resume_stops_what_a_killed_run_left_and_completes_the_run
    out = File.join(tmpdir, "run")
    killed = kill_mid_run(out)
    start_rackbench("run", "--resume", out)
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 4,
                         message: /\AStopped \d+ process\(es\) a killed rackbench left running in this run: \d+ (puma|unicorn)/)
    assert_empty killed.survivors.map { |e| "#{e.pid} #{Rackbench::System::ProcessTree.cmdline(e.pid)}" }
    assert_empty killed.listening_ports
    assert_equal 4, read_trials(out).map { |t| t["key"] }.uniq.size
  ensure
    killed&.kill_everything
  end

  def test_doctor_stops_what_a_killed_run_left
    killed = kill_mid_run(File.join(tmpdir, "run"))
    start_rackbench("doctor")
    @rb.wait
    assert_match(/WARN  leftovers\s+stopped \d+ process\(es\) a killed rackbench had left running: \d+ (puma|unicorn)/, @rb.stdout)
    assert_empty killed.survivors.map(&:pid)
    start_rackbench("doctor")
    @rb.wait
    assert_match(/ok    leftovers\s+no process left running by a killed rackbench/, @rb.stdout)
  ensure
    killed&.kill_everything
  end
end
