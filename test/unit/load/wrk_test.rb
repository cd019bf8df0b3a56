# frozen_string_literal: true

require "test_helper"
require "etc"
require "rackbench/load/wrk"
require_relative "../../support/fake_program"

# The wrk engine without wrk: argv building, and run/version against small
# shell scripts standing in for the wrk binary.
class WrkTest < Minitest::Test
  include FakeProgram

  Wrk = Rackbench::Load::Wrk
  OK_FIXTURE = File.expand_path("../../fixtures/wrk/ok.txt", __dir__)
  URL = "http://127.0.0.1:9/"

  def test_window_runs_the_window_script_but_a_scenario_keeps_its_own
    wrk = Rackbench::Load::Wrk.new
    argv = wrk.command(url: "http://127.0.0.1:1/x", concurrency: 8, duration: 3, window: true)
    assert_equal Rackbench::Load::Wrk::WINDOW_SCRIPT, argv[argv.index("-s") + 1]
    assert File.file?(Rackbench::Load::Wrk::WINDOW_SCRIPT)
    plain = wrk.command(url: "http://127.0.0.1:1/x", concurrency: 8, duration: 3)
    assert_equal Rackbench::Load::Wrk::SCRIPT, plain[plain.index("-s") + 1]
    assert wrk.counts_window?
  end

  def test_command_is_the_documented_argv
    argv = Wrk.new.command(url: URL, concurrency: 8, duration: 5, threads: 2, timeout: 30)
    assert_equal ["wrk", "-t", "2", "-c", "8", "-d", "5s", "--timeout", "30s", "--latency", "-s", Wrk::SCRIPT, URL],
                 argv
    assert File.file?(Wrk::SCRIPT)
  end

  def test_fractional_seconds_are_rounded_up
    argv = Wrk.new.command(url: URL, concurrency: 1, duration: 1.2, timeout: 0.5)
    assert_equal "2s", argv[argv.index("-d") + 1]
    assert_equal "1s", argv[argv.index("--timeout") + 1]
  end

  def test_default_threads_divide_concurrency
    expected_even = [2, Etc.nprocessors].min
    assert_equal expected_even, threads_of(concurrency: 8)
    assert_equal 1, threads_of(concurrency: 1)
    assert_equal 1, threads_of(concurrency: 5)
  end

  def test_threads_must_fit_concurrency
    assert_raises(Rackbench::UsageError) { threads_of(concurrency: 2, threads: 4) }
    error = assert_raises(Rackbench::UsageError) { threads_of(concurrency: 5, threads: 2) }
    assert_match(/open only 4 connections/, error.message)
  end

  def test_bad_numbers_are_usage_errors
    assert_raises(Rackbench::UsageError) { Wrk.new.command(url: URL, concurrency: 0, duration: 1) }
    assert_raises(Rackbench::UsageError) { Wrk.new.command(url: URL, concurrency: 2, duration: 0) }
    assert_raises(Rackbench::UsageError) { Wrk.new.command(url: URL, concurrency: 2, duration: 1, timeout: -1) }
  end

  def test_missing_binary
    wrk = Wrk.new(binary: "rackbench-no-such-wrk")
    refute wrk.available?
    assert_nil wrk.version
    error = Dir.mktmpdir { |dir| assert_raises(Rackbench::Error) { run_wrk(wrk, dir) } }
    assert_equal "wrk not found on PATH: run bin/setup (or apt-get install wrk)", error.message
  end

  def test_version_is_read_although_wrk_exits_non_zero
    with_script("echo 'wrk debian/4.1.0-3+b2 [epoll] Copyright (C) 2012 Will Glozer'; echo 'Usage: wrk'; exit 1") do |wrk|
      assert_equal "4.1.0", wrk.version
    end
    with_script("echo 'wrk 4.2.0 [kqueue] Copyright (C) 2012 Will Glozer'; exit 1") do |wrk|
      assert_equal "4.2.0", wrk.version
    end
  end

  def test_run_parses_what_wrk_printed
    with_script("cat '#{OK_FIXTURE}'") do |wrk, dir|
      result = run_wrk(wrk, dir)
      assert_equal 4401, result.requests
      assert_equal wrk.command(url: URL, concurrency: 2, duration: 1), result.command
    end
  end

  def test_run_raises_wrks_own_message_and_ignores_older_log_lines
    with_script("echo 'unable to connect to 127.0.0.1:9 Connection refused' >&2; exit 1") do |wrk, dir|
      File.write(File.join(dir, "load.log"), "wrk failed: an older run\n")
      error = assert_raises(Rackbench::Error) { run_wrk(wrk, dir) }
      assert_equal "wrk could not connect to #{URL}: Connection refused; is the server listening?", error.message
    end
  end

  def test_run_raises_when_wrk_prints_no_result_line
    with_script("echo 'Running 1s test'; exit 0") do |wrk, dir|
      error = assert_raises(Rackbench::Error) { run_wrk(wrk, dir) }
      assert_match(/no RACKBENCH_RESULT line/, error.message)
    end
  end

  private

  def threads_of(concurrency:, threads: nil)
    argv = Wrk.new.command(url: URL, concurrency: concurrency, duration: 1, threads: threads)
    Integer(argv[argv.index("-t") + 1])
  end

  def run_wrk(wrk, dir)
    wrk.run(url: URL, concurrency: 2, duration: 1, log_path: File.join(dir, "load.log"))
  end

  def with_script(body)
    with_fake_program("wrk", body) { |path, dir| yield Wrk.new(binary: path), dir }
  end
end
