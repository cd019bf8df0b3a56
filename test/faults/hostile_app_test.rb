# frozen_string_literal: true

require_relative "fault_helper"

# Apps that answer what no HTTP client should have to take: rackbench's own
# probes (readiness, verification) read a bounded number of bytes within a
# deadline, and say what they got.
class FaultHostileAppTest < Minitest::Test
  APP = File.expand_path("../fixtures/apps/hostile", __dir__)

  # rackbench's peak resident memory while it runs (VmRSS polled, KiB),
  # until it exits (at most `deadline` s).
  def peak_rss_kib(deadline: 60)
    peak = 0
    wait_until(deadline: deadline, what: "rackbench to exit (peak RSS polled meanwhile)") do
      rss = begin
        File.read("/proc/#{@rb.pid}/status")[/^VmRSS:\s+(\d+)/, 1].to_i
      rescue Errno::ENOENT, Errno::ESRCH
        0
      end
      peak = [peak, rss].max
      @rb.descendants
      @rb.exited?
    end
    peak
  end

  def test_an_endless_body_fails_verification_fast_with_bounded_memory
    started = Rackbench::Clock.now
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", APP, "-s", "puma x1:2", "-e", "/endless", "-e", "/ok", "--boot-timeout", "5",
                    "-c", "1", "-d", "1", "--warmup", "0", "-o", out)
    peak = peak_rss_kib
    elapsed = Rackbench::Clock.now - started
    assert_equal 1, @rb.exit_code, @rb.stderr
    assert_match(%r{FAILED /endless on puma x1:2 .*verification of /endless failed: status 200, but the body did not end: over 8 MiB without ending},
                 @rb.stdout)
    assert_operator elapsed, :<, 10 + 8, "the /ok trial (1 s) and boots aside, no wait for an end that never comes"
    assert_operator peak, :<, 200 * 1024, "rackbench stayed under 200 MB (peak #{peak / 1024} MB)"
    assert_equal ["/ok"], read_trials(out).map { |t| t["endpoint"] }, "the other endpoint was measured"
    assert_empty @rb.survivors
  end

  def test_a_reply_that_is_not_http_is_named_not_taken_for_silence
    start_rackbench("run", "--app", APP, "-s", "puma x1:2", "-e", "/garbage", "--boot-timeout", "5", "-c", "1", "-d", "1",
                    "--warmup", "0", "-o", File.join(tmpdir, "run"))
    started = Rackbench::Clock.now
    @rb.wait(timeout: 60)
    assert_equal 1, @rb.exit_code, @rb.stderr
    assert_match(%r{verification of /garbage failed: the answer is not HTTP: it began "GARBAGE\\x00\\x01 not http"}, @rb.stdout)
    assert_operator Rackbench::Clock.now - started, :<, 20, "no 60 s wait for an answer that came"
    assert_empty @rb.survivors
  end

  # Endpoints with characters a URI cannot hold as written are sent
  # percent-encoded (they crashed with exit 70 after the boot); the labels
  # keep what the user wrote.
  def test_endpoints_with_odd_characters_are_measured
    out = File.join(tmpdir, "run")
    odd = ["/a;b", "/x$(id)", "/t`q`", "/q?a={1}", "/caf\u00e9"]
    start_rackbench("run", "--app", APP, "-s", "puma x1:2", *odd.flat_map { |e| ["-e", e] }, "-c", "1", "-d", "0.5",
                    "--warmup", "0", "-o", out)
    @rb.wait(timeout: 120)
    assert_equal 0, @rb.exit_code, @rb.stderr
    trials = read_trials(out)
    assert_equal odd.sort, trials.map { |t| t["endpoint"] }.sort
    trials.each { |t| assert_operator t["requests"], :>, 0, t["endpoint"] }
    assert_empty @rb.survivors
  end

  # A daemon the app started at boot left the server's process group; when
  # the server stops, rackbench finds it by its boot's mark, stops it, and
  # says so. Nothing outlives a run that exits 0.
  def test_a_daemon_the_app_started_is_stopped_and_named
    daemon_app = File.expand_path("../fixtures/apps/daemonizing", __dir__)
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", daemon_app, "-s", "puma x1:1", "-e", "/", "-c", "1", "-d", "0.5", "--warmup", "0", "-o", out)
    @rb.wait(timeout: 120)
    assert_equal 0, @rb.exit_code, @rb.stderr
    left = Rackbench::System::ProcessTree.all.select { |e| Rackbench::System::ProcessTree.cmdline(e.pid).start_with?("rackbench-test-daemon") }
    assert_empty left.map(&:pid), "the app's daemon was stopped"
    assert_match(/puma x1:1: the app left 1 process\(es\) running after its server stopped \(started by the app, outside the server's process group: \d+ rackbench-test-daemon\); rackbench stopped them/,
                 File.read(File.join(out, "warnings.jsonl")))
  ensure
    Rackbench::System::ProcessTree.all.each do |e|
      Process.kill("KILL", e.pid) if Rackbench::System::ProcessTree.cmdline(e.pid).start_with?("rackbench-test-daemon")
    rescue Errno::ESRCH
      nil
    end
  end

  # The same daemon with its environment scrubbed (exec with
  # unsetenv_others) carries no mark: rackbench, a child subreaper, finds it
  # as an orphan re-parented to itself.
  def test_a_daemon_with_a_scrubbed_environment_is_found_by_ancestry
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", File.expand_path("../fixtures/apps/daemonizing_scrubbed", __dir__), "-s", "puma x1:1",
                    "-e", "/", "-c", "1", "-d", "0.5", "--warmup", "0", "-o", out)
    assert_fault_outcome(exit_code: 0, silent: "the daemon is named in a warning (warnings.jsonl), the run is complete",
                         run_dir: out, min_trials: 1)
    assert_empty scrubbed_daemons.map(&:pid), "the app's scrubbed daemon was stopped"
    assert_match(/puma x1:1: the app left 1 process\(es\) running after its server stopped \(.*\d+ rackbench-test-scrubbed-daemon 300\); rackbench stopped them/,
                 File.read(File.join(out, "warnings.jsonl")))
  ensure
    scrubbed_daemons.each do |e|
      Process.kill("KILL", e.pid)
    rescue Errno::ESRCH
      nil
    end
  end

  def scrubbed_daemons
    Rackbench::System::ProcessTree.all.select do |e|
      Rackbench::System::ProcessTree.cmdline(e.pid).start_with?("rackbench-test-scrubbed-daemon") &&
        !Rackbench::System::ProcessTree.zombie?(e.pid)
    end
  end

  # Unicorn's worker dying on every 10th request, with close-delimited
  # bodies: the crashes are stored as failures (an error rate near 10%), not
  # filed with wrk's close-delimited read errors as harmless.
  def test_a_crashing_worker_shows_its_error_rate
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", File.expand_path("../fixtures/apps/crashing", __dir__), "-s", "unicorn x2", "-e", "/",
                    "-c", "4", "-d", "2", "--warmup", "0", "-o", out)
    @rb.wait(timeout: 120)
    trial = read_trials(out).first
    refute_nil trial, @rb.stderr
    assert_operator trial["errors"]["read"], :>, trial["requests"], trial["errors"].inspect
    assert_operator trial["error_rate"], :>, 0.03, "crashes counted (#{trial['errors']}, #{trial['error_artifacts']})"
    assert_operator trial["error_rate"], :<, 0.2
    assert_empty @rb.survivors
  end
end
