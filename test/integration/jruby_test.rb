# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/runtime/jruby"

# Puma on JRuby for real (seed 001's server): one JVM boot that serves, one
# that cannot start. JVM boots are CPU-heavy on 2 cores: keep them to these.
class JrubyTest < Minitest::Test
  def setup
    require_tool!("jruby", Rackbench::Runtime::Jruby.default.problem.nil?)
  end

  def records(dir, file)
    File.readlines(File.join(dir, file)).map { |l| JSON.parse(l) }
  end

  def gone?(pid)
    Process.kill(0, pid)
    false
  rescue Errno::ESRCH
    true
  end

  # /pause/0.05 at c = 16 on 16 threads: Little's law gives 16 / 0.05 s =
  # 320 req/s, 16 requests in flight at once in one JVM (no GVL on JRuby).
  # The JVM is sampled (its pid, memory and threads), its heap limit is on
  # its command line, the steady warm-up's windows are stored, and the JVM
  # is stopped when the run ends.
  def test_puma_on_jruby_serves_pause_at_littles_law_throughput_and_is_sampled_and_stopped
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "-s", "puma x1:16 on jruby -Xmx256m", "-e", "/pause/0.05", "-c", "16", "-d", "3",
                                "--warmup", "steady", "--warmup-window", "1", "--warmup-max", "8", "-q", "-o", dir)
    assert_equal 0, status, err
    trial = records(dir, "trials.jsonl").first
    # A ceiling (each request's turnaround on 2 cores only takes from it): 0.8-1.02 of it.
    assert_includes 256.0..326.4, trial["rps"], "16 threads / 0.05 s"
    assert_equal 0, trial["errors"].values.sum, trial["errors"]
    boot = records(dir, "setups.jsonl").first
    assert_equal "6.6.1", boot["version"]
    assert_includes boot["argv"], "-J-Xmx256m"
    jvm = boot["master_pid"]
    server = records(dir, "samples.jsonl").flat_map { |s| s["processes"] }.select { |p| p["pid"] == jvm }
    refute_empty server, "the JVM (pid #{jvm}) was sampled"
    assert_operator server.map { |p| p["threads"] }.max, :>=, 16, "Puma's 16 threads live in the JVM"
    assert_operator trial.dig("memory", "pss_total_mb"), :>, 50, "a JVM's footprint"
    assert_operator trial.dig("cpu", "server_pct"), :>, 0
    windows = records(dir, "warmups.jsonl")
    assert_operator windows.size, :>=, 2
    assert_equal windows.map { |w| w["value"] }, trial.dig("warmup", "windows")
    assert gone?(jvm), "the JVM #{jvm} was stopped"
  end

  # A JVM that cannot start (a heap below its minimum) is a FAILED setup
  # quoting the log, and leaves no JVM behind.
  def test_a_jvm_that_cannot_start_fails_the_setup_with_its_log
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-s", "puma x1:4 on jruby -Xmx1k", "-e", "/hello", "-c", "1", "-d", "1",
                               "--warmup", "0", "-q", "-o", dir)
    assert_equal 1, status, out + err
    failed = records(dir, "setups.jsonl").first
    assert_equal "failed", failed["status"]
    assert_match(/exited during boot/, failed["reason"])
    assert_match(/heap/i, failed["log_tail"])
  end
end
