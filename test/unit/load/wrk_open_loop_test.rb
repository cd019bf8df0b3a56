# frozen_string_literal: true

require "test_helper"
require "rackbench/load"
require_relative "../../support/fake_program"

# The open-loop wrk engine without wrk: the connection rule, argv building,
# and run against a shell script standing in for wrk.
class WrkOpenLoopTest < Minitest::Test
  include FakeProgram

  WrkOpenLoop = Rackbench::Load::WrkOpenLoop
  OK_FIXTURE = File.expand_path("../../fixtures/wrk_open/ok.txt", __dir__)
  URL = "http://127.0.0.1:9/hello"

  def test_registered_as_wrk_open
    engine = Rackbench::Load.engine("wrk-open")
    assert_kind_of WrkOpenLoop, engine
    assert_equal "wrk-open", engine.name
  end

  def test_connection_rule_keeps_each_connection_idle_for_10_ms_between_sends
    assert_equal 1, connections(rate: 1)
    assert_equal 1, connections(rate: 50), "one connection sending every 20 ms"
    assert_equal 1, connections(rate: 100)
    assert_equal 2, connections(rate: 101)
    assert_equal 10, connections(rate: 1000)
    assert_equal 3, connections(rate: 250.5)
  end

  def test_connection_rule_covers_the_expected_tail
    assert_equal 50, connections(rate: 50, expected_latency_ms: 1000), "50 req/s through a 1 s stall"
    assert_equal 400, connections(rate: 2000, expected_latency_ms: 200)
    assert_equal 10, connections(rate: 1000, expected_latency_ms: 2), "10 ms floor wins"
    assert_equal 2, connections(rate: 50, expected_latency_ms: 30)
  end

  def test_connection_rule_is_capped
    assert_equal WrkOpenLoop::MAX_CONNECTIONS, connections(rate: 1_000_000)
    assert_equal WrkOpenLoop::MAX_CONNECTIONS, connections(rate: 100, expected_latency_ms: 60_000)
  end

  def test_command_runs_one_connection_per_thread_and_hands_the_schedule_to_the_script
    argv = WrkOpenLoop.new.command(url: URL, rate: 1000, duration: 2, expected_latency_ms: 20)
    assert_equal ["wrk", "-t", "20", "-c", "20", "-d", "3s", "--timeout", "30s", "-s", WrkOpenLoop::SCRIPT, URL,
                  "1000", "20", "2", "3"], argv
    assert File.file?(WrkOpenLoop::SCRIPT)
  end

  def test_connections_override_the_rule
    argv = WrkOpenLoop.new.command(url: URL, rate: 50, duration: 1.5, connections: 4, timeout: 2.5)
    assert_equal ["-t", "4", "-c", "4", "-d", "2s", "--timeout", "3s"], argv[1, 8]
    assert_equal %w[50 4 1.5 2], argv.last(4)
  end

  def test_wrk_runs_whole_seconds_leaving_time_for_the_last_answers
    assert_equal "2s", run_seconds(duration: 1)
    assert_equal "2s", run_seconds(duration: 1.75)
    assert_equal "3s", run_seconds(duration: 1.8)
    assert_equal "6s", run_seconds(duration: 5.5)
  end

  def test_fractional_rates_are_plain_decimals
    argv = WrkOpenLoop.new.command(url: URL, rate: 0.00001, duration: 1, connections: 1)
    assert_equal "0.00001", argv[-4]
    assert_equal "12.5", WrkOpenLoop.new.command(url: URL, rate: 12.5, duration: 1)[-4]
  end

  def test_bad_numbers_are_usage_errors
    engine = WrkOpenLoop.new
    assert_raises(Rackbench::UsageError) { engine.command(url: URL, rate: 0, duration: 1) }
    assert_raises(Rackbench::UsageError) { engine.command(url: URL, rate: Float::INFINITY, duration: 1) }
    assert_raises(Rackbench::UsageError) { engine.command(url: URL, rate: 50, duration: 0) }
    assert_raises(Rackbench::UsageError) { engine.command(url: URL, rate: 50, duration: 1, connections: 0) }
    assert_raises(Rackbench::UsageError) { engine.command(url: URL, rate: 50, duration: 1, connections: 1001) }
    assert_raises(Rackbench::UsageError) { engine.command(url: URL, rate: 50, duration: 1, expected_latency_ms: -1) }
  end

  def test_run_parses_the_open_loop_line
    with_script("cat '#{OK_FIXTURE}'") do |wrk, dir|
      result = wrk.run(url: URL, rate: 50, duration: 1.5, connections: 2, log_path: File.join(dir, "load.log"))
      assert_equal "open", result.loop
      assert_equal 75, result.requests
      assert_equal wrk.command(url: URL, rate: 50, duration: 1.5, connections: 2), result.command
    end
  end

  def test_run_raises_when_wrk_prints_only_the_closed_loop_line
    with_script("echo 'RACKBENCH_RESULT {}'; exit 0") do |wrk, dir|
      error = assert_raises(Rackbench::Error) { wrk.run(url: URL, rate: 5, duration: 1, log_path: File.join(dir, "l")) }
      assert_match(/no RACKBENCH_OPEN line/, error.message)
    end
  end

  private

  def connections(**kw)
    WrkOpenLoop.connections_for(**kw)
  end

  def run_seconds(duration:)
    argv = WrkOpenLoop.new.command(url: URL, rate: 10, duration: duration)
    argv[argv.index("-d") + 1]
  end

  def with_script(body)
    with_fake_program("wrk", body) { |path, dir| yield WrkOpenLoop.new(binary: path), dir }
  end
end
