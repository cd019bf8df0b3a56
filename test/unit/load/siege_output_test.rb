# frozen_string_literal: true

require "test_helper"
require "rackbench/load/siege"
require "rackbench/load/siege_output"
require_relative "../../support/fake_program"
require_relative "../../support/fixture_files"

# Fixtures are real siege 4.0.7 output; test/fixtures/siege/README.md says
# how each was recorded.
class SiegeOutputTest < Minitest::Test
  include FixtureFiles

  FIXTURES = File.expand_path("../../fixtures/siege", __dir__)
  SiegeOutput = Rackbench::Load::SiegeOutput
  NO_ERRORS = { "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => 0 }.freeze

  def test_healthy_run
    result = parse("ok.txt", command: %w[siege -b])
    assert_equal "siege", result.engine
    assert_equal 68, result.requests
    assert_in_delta 0.96, result.duration_s
    assert_equal 0, result.bytes, "15-byte bodies: 0.00 MB"
    assert_equal NO_ERRORS, result.errors
    assert_equal "closed", result.loop
    assert_equal %w[siege -b], result.command
    assert_in_delta 70.83, result.rps, 0.01
  end

  def test_latency_has_min_mean_max_and_no_percentiles
    latency = parse("ok.txt").latency_ms
    assert_equal %w[max mean min p50 p75 p90 p99 p99.9 stdev], latency.keys.sort
    assert_in_delta 50.0, latency["min"]
    assert_in_delta 70.0, latency["max"]
    assert_in_delta 3.82 * 0.96 / 68 * 1000, latency["mean"], 1e-9, "concurrency × elapsed / transactions"
    assert(latency.values_at("stdev", "p50", "p75", "p90", "p99", "p99.9").all?(&:nil?))
  end

  def test_mean_below_siege_resolution_is_recovered
    result = parse("hello.txt")
    assert_in_delta 3.92 * 1.96 / 2918 * 1000, result.latency_ms["mean"], 1e-9, "response_time says 0.00"
    assert_in_delta 0.0, result.latency_ms["min"]
    assert_equal (0.04 * 1_048_576).round, result.bytes
  end

  def test_non_2xx_responses_are_status_errors_and_still_requests
    result = parse("status_404.txt")
    assert_equal 1405, result.requests
    assert_equal NO_ERRORS.merge("status" => 1405), result.errors
  end

  def test_connection_close_setting
    assert_equal 589, parse("connection_close.txt").requests
  end

  def test_socket_failures_are_read_errors_below_the_limit
    result = parse("close_delimited.txt", failures: 5000)
    assert_equal 1025, result.requests
    assert_equal NO_ERRORS.merge("read" => 1024), result.errors
  end

  def test_reaching_the_failures_limit_raises
    { "close_delimited.txt" => [1024, 1024, 1.23], "connection_refused.txt" => [1024, 1025, 0.17],
      "reset_failures_10.txt" => [10, 11, 0.02] }.each do |name, (limit, failed, elapsed)|
      error = assert_raises(Rackbench::Error, name) { parse(name, failures: limit) }
      expected = /\Asiege gave up after #{failed} socket failures in #{elapsed} s \(its failures limit is #{limit} /
      assert_match expected, error.message
    end
  end

  def test_no_answer_gives_zero_requests_and_nil_latency
    result = parse("no_response.txt", failures: 1024)
    assert_equal 0, result.requests
    assert_equal 0, result.error_total
    assert(result.latency_ms.values.all?(&:nil?), result.latency_ms.inspect)
  end

  def test_output_without_json_raises
    error = assert_raises(Rackbench::Error) { SiegeOutput.parse("** SIEGE 4.0.7\n") }
    assert_match(/no JSON statistics/, error.message)
    error = assert_raises(Rackbench::Error) { SiegeOutput.parse("{\n\"transactions\": -1\n}\n") }
    assert_match(/transactions=-1/, error.message)
  end

  def test_failure_messages
    assert_equal "siege failed: [error] socket: read error Connection reset by peer sock.c:635: " \
                 "Connection reset by peer",
                 SiegeOutput.failure_message(fixture("reset_failures_10.txt").sub(/^\{.*\}/m, ""))
    assert_equal "siege rejected its arguments: see its usage text in the log",
                 SiegeOutput.failure_message("siege: invalid option -- 'z'\nUsage: siege [options]\n")
  end

  private

  def parse(name, command: nil, failures: nil)
    SiegeOutput.parse(fixture(name), command: command, failures: failures)
  end
end

# The siege engine without siege: argv, its settings file, and run/version
# against small shell scripts standing in for the siege binary.
class SiegeEngineTest < Minitest::Test
  include FakeProgram

  Siege = Rackbench::Load::Siege
  FIXTURES = SiegeOutputTest::FIXTURES
  URL = "http://127.0.0.1:9/"

  def test_command_is_benchmark_mode_with_whole_seconds
    assert_equal ["siege", "-b", "-j", "--no-parser", "-c", "4", "-t", "2S", URL],
                 Siege.new.command(url: URL, concurrency: 4, duration: 1.2, threads: 2)
  end

  def test_siegerc_pins_keepalive_failures_timeout_and_limit
    rc = Siege.new.siegerc(concurrency: 4, timeout: 2.5)
    ["connection = keep-alive", "failures = 1024", "timeout = 3", "limit = 255", "logging = false",
     "parser = false", "json_output = true", "protocol = HTTP/1.1", "show-logfile = false"].each do |line|
      assert_includes rc.lines.map(&:strip), line
    end
    rc = Siege.new(keepalive: false, failures: 50).siegerc(concurrency: 300)
    assert_includes rc, "connection = close"
    assert_includes rc, "failures = 50"
    assert_includes rc, "limit = 300", "siege hangs when -c exceeds limit"
  end

  def test_bad_values_are_usage_errors
    assert_raises(Rackbench::UsageError) { Siege.new(failures: 0) }
    assert_raises(Rackbench::UsageError) { Siege.new.command(url: URL, concurrency: 0, duration: 1) }
    assert_raises(Rackbench::UsageError) { Siege.new.command(url: URL, concurrency: 2, duration: -1) }
  end

  def test_missing_binary
    siege = Siege.new(binary: "rackbench-no-such-siege")
    refute siege.available?
    assert_nil siege.version
    error = Dir.mktmpdir { |dir| assert_raises(Rackbench::Error) { run_siege(siege, dir) } }
    assert_equal "siege not found on PATH: run bin/setup (or apt-get install siege)", error.message
  end

  def test_version_runs_with_a_private_home
    with_script("[ -f \"$HOME/.siege/siege.conf\" ] && [ \"$SIEGERC\" = \"$HOME/.siege/siege.conf\" ] && " \
                "echo 'SIEGE 4.0.7'") do |siege|
      assert_equal "4.0.7", siege.version
    end
  end

  def test_run_reads_its_settings_and_parses_the_json
    with_script("grep -q '^failures = 1024$' \"$SIEGERC\" || exit 3; cat '#{FIXTURES}/ok.txt'") do |siege, dir|
      result = run_siege(siege, dir)
      assert_equal 68, result.requests
      assert_equal siege.command(url: URL, concurrency: 2, duration: 1), result.command
    end
  end

  def test_run_raises_at_the_failures_limit_and_on_a_non_zero_exit
    with_script("cat '#{FIXTURES}/reset_failures_10.txt'") do |_siege, dir|
      strict = instant(Siege.new(binary: siege_path(dir), failures: 10))
      error = assert_raises(Rackbench::Error) { run_siege(strict, dir) }
      assert_match(/gave up after 11 socket failures/, error.message)
    end
    with_script("echo '[fatal] unable to allocate memory' >&2; exit 1") do |siege, dir|
      error = assert_raises(Rackbench::Error) { run_siege(siege, dir) }
      assert_equal "siege failed: [fatal] unable to allocate memory", error.message
    end
  end

  private

  def run_siege(siege, dir)
    siege.run(url: URL, concurrency: 2, duration: 1, log_path: File.join(dir, "load.log"))
  end

  def siege_path(dir)
    File.join(dir, "siege")
  end

  # No wait for the wall clock's next second (that is for real siege).
  def instant(siege)
    siege.define_singleton_method(:start_after_second_turns) { nil }
    siege
  end

  def with_script(body)
    with_fake_program("siege", body) { |path, dir| yield instant(Siege.new(binary: path)), dir }
  end
end
