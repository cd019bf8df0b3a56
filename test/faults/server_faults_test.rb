# frozen_string_literal: true

require_relative "fault_helper"
require "rackbench/process_control/log_cap"

# Faults on the server side: crashes, hangs, boot failures, a taken port.
class FaultServerTest < Minitest::Test
  def app(code)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), code)
    File.join(dir, "config.ru")
  end

  def test_a_worker_killed_mid_trial_is_recorded_and_the_run_goes_on
    out = File.join(tmpdir, "run")
    start_rackbench("run", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "4", "-d", "3", "--warmup", "0", "-o", out)
    # Killed once the trial's load runs (setups.jsonl is written before the
    # verification and the sampler's start, which must see the old worker).
    @rb.wait_until { read_setups(out).any? && @rb.load_running? }
    sleep 0.5
    worker = read_setups(out).first["worker_pids"].first
    Process.kill("KILL", worker)
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 1,
                         message: %r{\Awarning: unicorn x2 /pause/0\.05 c=4: at least 1 worker process\(es\) exited during the trial \(a crash})
    trial = read_trials(out).first
    assert_operator trial["requests"], :>, 0
    assert_equal 1, trial.dig("processes", "worker_restarts"), trial["processes"].inspect
    assert_equal 1, trial["warnings"].grep(/worker process\(es\) exited during the trial/).size, trial["warnings"].inspect
  end

  def test_the_whole_server_killed_mid_trial_fails_that_setup_and_the_next_runs
    out = File.join(tmpdir, "run")
    start_rackbench("run", "-s", "puma x2:2", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "2,4", "-d", "2",
                    "--warmup", "0", "-o", out)
    @rb.wait_until { read_setups(out).any? }
    sleep 0.8
    # The round's order is random (Plan#round): the setup booted first is the one killed.
    first = read_setups(out).first
    killed = first["setup"]
    other = (["puma x2:2", "unicorn x2"] - [killed]).first
    Process.kill("KILL", -first["master_pid"])
    name = Regexp.escape(killed)
    assert_fault_outcome(exit_code: 1, run_dir: out, min_trials: 2, on: :stdout,
                         message: /\AFAILED #{name} \(repetition 1\): #{name}: server died during the run \(killed by SIGKILL\)/)
    failed = read_setups(out).find { |s| s["status"] == "failed" }
    assert_equal killed, failed["setup"]
    assert_match(/server died during the run/, failed["reason"])
    assert_equal 2, read_trials(out).count { |t| t["setup"] == other }, "the next setup ran"
    assert_match(/^  FAILED #{Regexp.escape(killed)}: server died/, @rb.stderr, "and as it happened, in the progress")
  end

  def test_a_server_that_never_becomes_ready_hits_the_boot_deadline
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", app("sleep 600\nrun ->(_) { [200, {}, []] }\n"), "-s", "puma x1:1", "-e", "/",
                    "-c", "1", "-d", "1", "--boot-timeout", "3", "--stop-timeout", "2", "-o", out)
    assert_fault_outcome(exit_code: 1, run_dir: out, on: :stdout,
                         message: /\AFAILED puma x1:1 \(repetition 1\): puma x1:1: server did not answer on port \d+ within 3\.0 s/)
    assert_match(/did not answer on port \d+ within 3.0 s/, read_setups(out).first["reason"])
  end

  def test_a_config_ru_that_raises_at_boot
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", app("raise 'broken app'\n"), "-s", "unicorn x1", "-e", "/", "-c", "1", "-d", "1",
                    "-o", out)
    assert_fault_outcome(exit_code: 1, run_dir: out, on: :stdout,
                         message: /\AFAILED unicorn x1 \(repetition 1\): unicorn x1: server exited during boot .*: broken app \(RuntimeError\)/)
    setup = read_setups(out).first
    assert_match(/exited during boot/, setup["reason"])
    assert_match(/broken app/, setup["log_tail"])
  end

  def test_a_server_that_accepts_but_never_answers
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", app("run ->(_) { sleep 600; [200, {}, []] }\n"), "-s", "puma x1:2", "-e", "/slow",
                    "-c", "2", "-d", "2", "--timeout", "1", "--warmup", "0", "--no-verify", "--stop-timeout", "2",
                    "-o", out)
    # The trial's progress line: no answer, each connection's request an error.
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 1,
                         message: %r{\A  \[1/1\] puma x1:2 +/slow +c=2 +0\.0 req/s  mean -  p99 - .*  2 errors: 2 timed out\b})
    trial = read_trials(out).first
    assert_equal 0, trial["requests"]
    assert_equal 2, trial["errors"]["timeout"], "each connection's request counted as a timeout"
    assert_match(/no response in the whole trial/, trial["notes"].join)
  end

  # Every 50th request never ends: with four threads and four connections
  # the server answers 196 requests (2 of them rackbench's readiness probes)
  # and then holds the last four until the trial ends. wrk itself reports
  # 194 requests and no error.
  HANGS_EVERY_50TH = <<~RUBY
    count = 0
    lock = Mutex.new
    run lambda { |_env|
      n = lock.synchronize { count += 1 }
      sleep 600 if (n % 50).zero?
      [200, { "content-type" => "text/plain", "content-length" => "2" }, ["ok"]]
    }
  RUBY

  def test_requests_that_hang_after_answers_are_counted_as_timeouts
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", app(HANGS_EVERY_50TH), "-s", "puma x1:4", "-e", "/", "-c", "4", "-d", "3",
                    "--timeout", "5", "--warmup", "0", "--no-verify", "--stop-timeout", "2", "-o", out)
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 1,
                         message: %r{\A  \[1/1\] puma x1:4 +/ +c=4 .*\(closed-loop\)  4 errors: 4 timed out\b})
    trial = read_trials(out).first
    assert_includes 190..196, trial["requests"], trial.inspect
    assert_equal 4, trial["unanswered"]
    assert_equal 4, trial["errors"]["timeout"]
    assert_in_delta 4.0 / (trial["requests"] + 4), trial["error_rate"], 1e-6
    assert_match(/4 request\(s\) still unanswered when the trial ended/, trial["notes"].join)
  end

  def test_requests_that_hang_in_the_open_loop_are_counted_as_timeouts
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", app(HANGS_EVERY_50TH), "-s", "puma x1:4", "-e", "/", "--rate", "200", "-d", "3",
                    "--connections", "8", "--timeout", "5", "--warmup", "0", "--no-verify", "--stop-timeout", "2", "-o", out)
    # The server stops answering after ~196 requests of the 600 planned: the
    # progress line counts the errors and marks the trial invalid.
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 1,
                         message: %r{\A  \[1/1\] puma x1:4 +/ +r=200 .*\(open-loop\)  \d+ errors?(: [^I]*)?  INVALID: achieved [\d.]+ req/s})
    trial = read_trials(out).first
    assert_includes 190..196, trial["requests"], trial.inspect
    assert_operator trial["unanswered"], :>=, 4, "the four held by the server, and those queued behind them"
    assert_operator trial["unanswered"], :<=, 8, "one per connection at most"
    assert_equal trial["unanswered"], trial["errors"]["timeout"]
  end

  # 100 kB of log per request: ~100 MB in a 2 s trial without a cap.
  def test_a_server_flooding_its_log_keeps_head_and_tail_under_the_cap
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", app("run ->(_) { $stderr.write('x' * 100_000 + \"\\n\"); [200, {}, ['ok']] }\n"),
                    "-s", "puma x1:2", "-e", "/", "-c", "2", "-d", "2", "--warmup", "0", "--no-verify", "-o", out)
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 1,
                         silent: "capping a log is rackbench doing its job, not a fault: the log says where it was cut (below)")
    requests = read_trials(out).first["requests"]
    assert_operator requests * 100_000, :>, 30 * 1024 * 1024, "the server wrote far more than the cap"
    log = Dir.glob(File.join(out, "**", "server.log")).first
    assert log, "the server's log is in the run directory"
    text = File.binread(log)
    limit = Rackbench::ProcessControl::LogCap::LIMIT
    assert_operator text.bytesize, :<=, limit, "capped at #{limit} bytes, got #{text.bytesize}"
    assert_match(/Puma starting/, text[0, 4096], "the head (the server's boot lines) is kept")
    assert_match(/\[rackbench: \d+ bytes of this log cut here/, text)
    assert_match(/Gracefully stopping/, text[-4096..], "the tail (the server's last lines, its stop) is kept")
  end

  # Each stop waits out --stop-timeout before the KILL: said once for the
  # setup, though both rounds' stops cost it.
  def test_an_app_that_traps_term_is_killed_at_each_stop_and_said_once
    out = File.join(tmpdir, "run")
    start_rackbench("run", "--app", app("trap('TERM') {}\nrun ->(_) { [200, {}, ['ok']] }\n"), "-s", "puma x1:1", "-e", "/",
                    "-c", "1", "-d", "1", "--warmup", "0", "--repeat", "2", "--stop-timeout", "1", "-o", out)
    assert_fault_outcome(exit_code: 0, run_dir: out, min_trials: 2,
                         message: /\Awarning: puma x1:1: did not stop within 1 s of SIGTERM \(--stop-timeout\): rackbench KILLed it; /)
    assert_equal 1, File.read(File.join(out, "warnings.jsonl")).scan("did not stop within").size, "kept in warnings.jsonl, once"
  end

  def test_the_port_taken_by_another_process
    squatter = TCPServer.new("127.0.0.1", 0)
    out = File.join(tmpdir, "run")
    start_rackbench("run", "-s", "puma x1:1", "-e", "/hello", "-c", "1", "-d", "1", "--port", squatter.addr[1], "-o", out)
    assert_fault_outcome(exit_code: 1, run_dir: out, on: :stdout,
                         message: /\AFAILED puma x1:1 \(repetition 1\): .*port #{squatter.addr[1]} on 127\.0\.0\.1 is already in use by another process/)
    assert_match(/port #{squatter.addr[1]} on 127.0.0.1 is already in use by another process/, read_setups(out).first["reason"])
  ensure
    squatter&.close
  end
end
