# frozen_string_literal: true

require "test_helper"
require "json"

# Apps as users bring them: a redirect instead of the page, a server that
# keeps connections alive, an app that fails while it loads.
class RealAppsTest < Minitest::Test
  APPS = File.expand_path("../fixtures/apps", __dir__)

  def read_jsonl(dir, name)
    File.readlines(File.join(dir, name)).map { |l| JSON.parse(l) }
  end

  def run_quick(*args)
    out = File.join(tmpdir, "run")
    status, _stdout, err = run_cli("run", *args, "-c", "1", "-d", "1", "--warmup", "0", "--cooldown", "0", "-o", out)
    [status, out, err]
  end

  # The fixture's / answers 301 to https, as a Rails app with force_ssl does;
  # no --endpoint: an app is loaded at /.
  def test_a_redirect_fails_verification_unless_it_is_expected
    status, out, = run_quick("--app", File.join(APPS, "redirect"), "-s", "puma x1:1")
    assert_equal 1, status
    reason = read_jsonl(out, "setups.jsonl").last["reason"]
    assert_match(%r{verification of / failed: status 301 redirects to https://127\.0\.0\.1:\d+/: .*config\.force_ssl = false}, reason)
    assert_match(/pass --expect-status 301/, reason)
    trials = File.join(out, "trials.jsonl")
    assert !File.exist?(trials) || File.zero?(trials), "no trial of a redirect is stored"

    status, out, err = run_quick("--app", File.join(APPS, "redirect"), "-s", "puma x1:1", "--expect-status", "301")
    assert_equal 0, status, err
    trial = read_jsonl(out, "trials.jsonl").first
    assert_equal "/", trial["endpoint"]
    assert_operator trial["requests"], :>, 0
    assert_equal 0, trial["error_total"]
  end

  # Verification asks for keep-alive as wrk does, so Puma (which keeps
  # connections) gets no "no keep-alive" note and Unicorn (which closes
  # each one) does.
  def test_the_no_keep_alive_note_is_for_a_server_that_closes_connections
    status, out, err = run_quick("-s", "puma x1:1", "-s", "unicorn x1", "-e", "/hello")
    assert_equal 0, status, err
    notes = read_jsonl(out, "trials.jsonl").to_h { |t| [t["server"], Array(t["notes"]).join(" ")] }
    refute_match(/no keep-alive/, notes.fetch("puma"))
    assert_match(/closes each connection \(no keep-alive\)/, notes.fetch("unicorn"))
  end

  def test_a_boot_error_quotes_the_error_not_the_backtrace
    status, out, = run_quick("--app", File.join(APPS, "raising"), "-s", "puma x1:1")
    assert_equal 1, status
    row = read_jsonl(out, "setups.jsonl").last
    assert_match(/server exited during boot \(exited with status 1\): .*ArgumentError.*database configuration does not specify adapter/,
                 row["reason"])
    refute_match(/\bfrom \S+:\d+:in/, row["reason"])
    assert_match(%r{see \S+/server\.log\z}, row["reason"])
  end

  # Passenger serves its own error page and starts no worker: the message
  # quotes why, and the run does not wait out the boot timeout (60 s).
  def test_a_passenger_app_that_fails_to_load_says_why_at_once
    require "rackbench/server"
    skip "passenger is not installed" unless Rackbench::Server.adapter("passenger").available?
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    status, out, = run_quick("--app", File.join(APPS, "raising"), "-s", "passenger x1")
    assert_equal 1, status
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 30
    assert_match(/found 0 of 1 worker processes after boot \(the app did not start in them: .*database configuration does not specify adapter/,
                 read_jsonl(out, "setups.jsonl").last["reason"])
  end
end
