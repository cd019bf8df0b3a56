# frozen_string_literal: true

require "test_helper"
require "minitest/mock"
require "rackbench/cli"

# A bug in rackbench (any exception that is not a Rackbench::Error): one line
# on the terminal naming a crash log, exit 70, and the log holds the
# exception and its backtrace for the bug report.
class CliCrashTest < Minitest::Test
  def boom(*)
    raise ArgumentError, "wrong number of widgets\nsecond line of the message"
  end

  def test_a_bug_prints_one_line_and_writes_the_backtrace_to_the_crash_log
    status, out, err = Rackbench::CLI.stub(:dispatch, method(:boom)) { run_cli("servers") }
    assert_equal 70, status
    assert_equal "", out
    assert_equal 1, err.lines.size, err
    line = err.chomp
    assert_match(/\AError: internal error in rackbench \(ArgumentError: wrong number of widgets\); please report it with (\S+)\z/, line)
    log = line[/please report it with (\S+)\z/, 1]
    @crash_log = log
    text = File.read(log)
    assert text.start_with?("ArgumentError: wrong number of widgets\nsecond line of the message\n"), text
    assert_match(/crash_test\.rb:\d+:in `boom'/, text, "the backtrace reaches the code that raised")
    assert_match(%r{lib/rackbench/cli\.rb:\d+:in `call'}, text)
    assert_equal 0o700, File.stat(File.dirname(log)).mode & 0o777, "a private directory"
    assert_equal 0o600, File.stat(log).mode & 0o777
    refute_equal log, run_crash_log, "an unpredictable name: each crash gets its own"
  end

  def run_crash_log
    _, _, err = Rackbench::CLI.stub(:dispatch, method(:boom)) { run_cli("servers") }
    err[/please report it with (\S+)$/, 1].tap { |l| FileUtils.rm_rf(File.dirname(l)) }
  end

  def teardown
    super
    FileUtils.rm_rf(File.dirname(@crash_log)) if @crash_log
  end
end
