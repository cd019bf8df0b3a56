# frozen_string_literal: true

require_relative "../faults/fault_helper"
require "rackbench/system/process_tree"

# A real signal sent to a real `exe/rackbench run` in each phase of a run:
# the run stops within seconds, exits 128 + signal number without a stack
# trace, keeps the trials it completed (and says how to resume), and leaves
# no process running or listening. Phases are recognised from the outside
# (progress lines, the run directory, the process tree); the two phases too
# short to hit that way (between setups, writing the report) are held open
# by the RACKBENCH_TEST_HOLD seam (lib/rackbench/test_seam.rb).
class SignalsTest < Minitest::Test
  STOP_WITHIN_S = 10 # from the signal to rackbench's exit; a graceful Puma stop takes about 1 s
  SIGNOS = { "INT" => 2, "TERM" => 15, "HUP" => 1 }.freeze

  def run_args(out, setups: ["puma x1:2"], endpoint: "/pause/0.05", levels: "1", duration: 1, warmup: 1)
    ["run", *setups.flat_map { |s| ["-s", s] }, "-e", endpoint, "-c", levels, "-d", duration, "--warmup", warmup, "-o", out]
  end

  # Ctrl-C reaches the terminal's foreground process group; kill(1) and a
  # hang-up reach the process itself.
  def deliver(sig)
    sig == "INT" ? Process.kill(sig, -@rb.pid) : @rb.signal(sig)
  end

  def running?(program)
    Rackbench::System::ProcessTree.tree(@rb.pid).any? do |e|
      e.pid != @rb.pid && Rackbench::System::ProcessTree.cmdline(e.pid).to_s.match?(program)
    end
  end

  def setup_records(out)
    read_setups(out).select { |s| s["status"] == "ok" }
  end

  # Signals once the phase is reached, then checks what every phase must give.
  def interrupt(sig, out, trials:, env: {}, args: nil, &phase)
    start_rackbench(*(args || run_args(out)), env: env)
    @rb.wait_until(timeout: 90, &phase)
    deliver(sig)
    signalled = Rackbench::Clock.now
    @rb.wait(timeout: STOP_WITHIN_S + 20)
    assert_operator Rackbench::Clock.now - signalled, :<, STOP_WITHIN_S, "stopped within seconds; stderr: #{@rb.stderr}"
    kept = trials.positive? ? "; completed trials are kept in .*\\(rackbench run --resume " : "$"
    assert_fault_outcome(exit_code: 128 + SIGNOS.fetch(sig), message: /\AInterrupted by SIG#{sig}: servers stopped#{kept}/)
    assert_equal trials, read_trials(out).size, "completed trials kept; stderr: #{@rb.stderr}"
    refute_match(/measuring anyway|internal error/, @rb.stderr, "the interrupt was not swallowed by a phase")
  end

  %w[INT TERM].each do |sig|
    define_method("test_sig#{sig.downcase}_during_boot") do
      out = File.join(tmpdir, "run")
      interrupt(sig, out, trials: 0) { running?(/puma/) && setup_records(out).empty? }
      assert_empty setup_records(out), "the signal came while the server was booting"
    end

    define_method("test_sig#{sig.downcase}_during_verification") do
      out = File.join(tmpdir, "run")
      # Each of verification's 3 requests to /pause/2 takes 2 s.
      interrupt(sig, out, trials: 0, args: run_args(out, endpoint: "/pause/2")) do
        setup_records(out).any? && !@rb.stderr.include?("warming up")
      end
      refute_includes @rb.stderr, "warming up", "the signal came during verification"
    end

    define_method("test_sig#{sig.downcase}_during_warm_up") do
      out = File.join(tmpdir, "run")
      interrupt(sig, out, trials: 0, args: run_args(out, warmup: 5)) { @rb.stderr.include?("warming up") && running?(%r{\Awrk .*http://}) }
      refute_match(/warm-up .* failed/, @rb.stderr)
    end

    define_method("test_sig#{sig.downcase}_during_a_trial") do
      out = File.join(tmpdir, "run")
      interrupt(sig, out, trials: 1, args: run_args(out, levels: "1,2", duration: 2, warmup: 0)) do
        read_trials(out).size == 1 && running?(%r{\Awrk .*http://})
      end
    end

    define_method("test_sig#{sig.downcase}_between_setups") do
      out = File.join(tmpdir, "run")
      interrupt(sig, out, trials: 1, args: run_args(out, setups: ["puma x1:2", "puma x1:1"], warmup: 0),
                          env: { "RACKBENCH_TEST_HOLD" => "between_setups" }) do
        @rb.stderr.include?("test seam: holding in between_setups")
      end
      assert_equal 1, @rb.stderr.scan("booting ").size, "the second setup never booted"
    end

    define_method("test_sig#{sig.downcase}_while_the_report_is_written") do
      out = File.join(tmpdir, "run")
      interrupt(sig, out, trials: 1, args: run_args(out, warmup: 0), env: { "RACKBENCH_TEST_HOLD" => "report" }) do
        @rb.stderr.include?("test seam: holding in report")
      end
      assert_empty Dir.glob(File.join(out, "report.html*")), "no report, and no half-written one"
    end
  end

  # --boot together: a signal while a round's servers run side by side
  # stops them all (each Session's ensure, nested), and keeps the trials.
  def test_sigint_during_a_round_booted_together
    out = File.join(tmpdir, "run")
    args = run_args(out, setups: ["puma x1:2", "puma x1:1"], levels: "1,2", duration: 2, warmup: 0) +
           ["-r", "2", "--boot", "together"]
    interrupt("INT", out, trials: 5, args: args) { read_trials(out).size == 5 && running?(%r{\Awrk .*http://}) }
    together = setup_records(out).select { |s| s["repetition"] == 2 }
    assert_equal [["puma x1:1"], ["puma x1:2"]], together.map { |s| s["neighbours"] }.sort, "round 2 booted both side by side"

    # --resume finishes round 2 side by side, its cells left in the plan's
    # order: c=1 (the other setup's), then c=2 (both, in the round's order).
    first = read_trials(out).last
    other = (["puma x1:2", "puma x1:1"] - [first["setup"]]).first
    start_rackbench("run", "--resume", out)
    @rb.wait
    assert_equal 0, @rb.exit_code, @rb.stderr
    resumed = read_trials(out).drop(5).map { |t| [t["setup"], t["concurrency"]] }
    assert_equal [[other, 1], [first["setup"], 2], [other, 2]], resumed, "after #{first['setup']} c=1"
  end

  # Ctrl-C while Unicorn's workers are busy with the warm-up's load: QUIT
  # reaches the master, which stops its workers once their requests end,
  # well before --stop-timeout (sent to the whole group, it left a busy
  # worker asleep in epoll_wait, and the stop waited the 30 s out, then KILLed).
  def test_sigint_during_a_unicorn_warmup
    out = File.join(tmpdir, "run")
    args = run_args(out, setups: ["unicorn x2"], levels: "4", duration: 5, warmup: 5) + ["--stop-timeout", "30"]
    interrupt("INT", out, trials: 0, args: args) { @rb.stderr.include?("warming up") && running?(%r{\Awrk .*http://}) }
  end

  def test_sighup_ends_a_run_as_a_closed_terminal_would
    out = File.join(tmpdir, "run")
    interrupt("HUP", out, trials: 1, args: run_args(out, levels: "1,2", duration: 2, warmup: 0)) do
      read_trials(out).size == 1 && running?(%r{\Awrk .*http://})
    end
  end
end
