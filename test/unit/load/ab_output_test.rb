# frozen_string_literal: true

require "test_helper"
require "rackbench/load/ab"
require "rackbench/load/ab_output"
require_relative "../../support/fake_program"
require_relative "../../support/fixture_files"

# Fixtures are real ab 2.3 output (apache2-utils 2.4.71); test/fixtures/ab/README.md
# says how each was recorded.
class AbOutputTest < Minitest::Test
  include FixtureFiles

  FIXTURES = File.expand_path("../../fixtures/ab", __dir__)
  AbOutput = Rackbench::Load::AbOutput
  NO_ERRORS = { "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => 0 }.freeze

  def test_healthy_run
    result = parse("ok", command: %w[ab -r])
    assert_equal "ab", result.engine
    assert_equal 74, result.requests
    assert_in_delta 1.040, result.duration_s
    assert_equal 6364, result.bytes
    assert_equal NO_ERRORS, result.errors
    assert_equal "closed", result.loop
    assert_equal %w[ab -r], result.command
    assert_in_delta 71.15, result.rps, 0.01
  end

  def test_latency_from_the_csv_and_the_total_row
    latency = parse("ok").latency_ms
    expected = { "min" => 50.574, "mean" => 52.0, "stdev" => 1.0, "max" => 56.177, "p50" => 51.78,
                 "p75" => 52.48, "p90" => 53.452, "p99" => 56.177 }
    expected.each { |key, ms| assert_in_delta ms, latency[key], 1e-9, key }
    assert_nil latency["p99.9"], "ab gives whole percents only"
  end

  def test_mean_is_the_measured_one_when_the_derived_one_is_biased
    # "(mean)" = 4 × 1.040 s / 74 = 56.216 ms, above every request's time.
    assert_match(/56\.216 \[ms\] \(mean\)/, fixture("ok.txt"))
    assert_in_delta 52.0, parse("ok").latency_ms["mean"]
  end

  def test_mean_is_the_derived_one_when_many_requests_make_it_precise
    result = parse("keepalive")
    assert_in_delta 1.012, result.latency_ms["mean"], 1e-9, "whole-ms Total mean would say 1"
    assert_equal 3949, AbOutput.summary(fixture("keepalive.txt"))["keepalive"]
  end

  def test_non_2xx_responses_are_status_errors_and_still_requests
    result = parse("status_404")
    assert_equal 2120, result.requests
    assert_equal NO_ERRORS.merge("status" => 2120), result.errors
  end

  def test_length_failures_are_kept_out_of_errors
    result = parse("length_varies")
    assert_equal 4268, result.requests
    assert_equal 0, result.error_total
    assert_equal 3658, AbOutput.summary(fixture("length_varies.txt"))["length"]
  end

  def test_close_delimited_responses_are_not_errors
    result = parse("close_delimited")
    assert_equal 3752, result.requests
    assert_equal 0, result.error_total
  end

  def test_receive_failures_are_not_requests
    result = parse("connection_refused")
    assert_equal 0, result.requests, "ab's 21826 complete requests are all receive failures"
    assert_equal NO_ERRORS.merge("read" => 21_826 + 10_913), result.errors
    assert(result.latency_ms.values.all?(&:nil?), result.latency_ms.inspect)
  end

  def test_reset_connections_are_read_errors
    result = parse("reset")
    assert_equal 5213 - 4126, result.requests
    assert_equal 4126 + 4871, result.errors["read"]
    assert_equal 0, result.bytes
  end

  def test_a_run_without_report_raises
    error = assert_raises(Rackbench::Error) { AbOutput.parse(fixture("no_response.txt")) }
    assert_match(/no report/, error.message)
  end

  def test_missing_or_short_csv
    assert(AbOutput.parse(fixture("ok.txt"), csv: nil).latency_ms.values.all?(&:nil?))
    short = "Percentage served,Time in ms\n0,1.0\n"
    error = assert_raises(Rackbench::Error) { AbOutput.parse(fixture("ok.txt"), csv: short) }
    assert_match(/101/, error.message)
  end

  def test_failure_messages
    assert_equal "ab gave up: no connection got an answer within its -s timeout (1 s), which ends ab's " \
                 "whole run without a report; is the server stalled?",
                 AbOutput.failure_message(fixture("no_response.txt"), timeout: 1)
    assert_equal "ab rejected its arguments: invalid URL", AbOutput.failure_message(fixture("usage_invalid_url.txt"))
    assert_equal "ab rejected its arguments: Invalid Concurrency [Range 0..200000]",
                 AbOutput.failure_message(fixture("usage_concurrency.txt"))
    assert_equal "ab could not connect to http://127.0.0.1:9/: Connection refused; is the server listening?",
                 AbOutput.failure_message("apr_socket_connect(): Connection refused (111)\n",
                                          url: "http://127.0.0.1:9/")
    assert_equal "ab failed: ab printed nothing", AbOutput.failure_message("")
  end

  private

  def parse(name, command: nil)
    csv = File.join(FIXTURES, "#{name}.csv.txt")
    AbOutput.parse(fixture("#{name}.txt"), csv: File.exist?(csv) ? File.read(csv) : nil, command: command)
  end
end

# The ab engine without ab: argv building, and run/version against small
# shell scripts standing in for the ab binary.
class AbEngineTest < Minitest::Test
  include FakeProgram

  Ab = Rackbench::Load::Ab
  FIXTURES = AbOutputTest::FIXTURES
  URL = "http://127.0.0.1:9/"

  def test_command_is_the_seed_flags_with_n_after_t
    argv = Ab.new.command(url: URL, concurrency: 40, duration: 30, timeout: 30)
    assert_equal ["ab", "-r", "-c", "40", "-t", "30", "-n", "10000000", "-s", "30", "-e", "percentiles.csv", URL],
                 argv
    assert_operator argv.index("-n"), :>, argv.index("-t"), "-t resets -n to 50000 when it comes later"
  end

  def test_keepalive_adds_k_and_seconds_round_up
    argv = Ab.new(keepalive: true).command(url: URL, concurrency: 2, duration: 1.2, timeout: 0.5, threads: 4)
    assert_equal ["ab", "-k", "-r", "-c", "2", "-t", "2", "-n", "10000000", "-s", "1", "-e", "percentiles.csv", URL],
                 argv
  end

  def test_bad_numbers_are_usage_errors
    assert_raises(Rackbench::UsageError) { Ab.new.command(url: URL, concurrency: 0, duration: 1) }
    assert_raises(Rackbench::UsageError) { Ab.new.command(url: URL, concurrency: 2, duration: 0) }
    assert_raises(Rackbench::UsageError) { Ab.new.command(url: URL, concurrency: 2, duration: 1, timeout: -1) }
  end

  def test_missing_binary
    ab = Ab.new(binary: "rackbench-no-such-ab")
    refute ab.available?
    assert_nil ab.version
    error = Dir.mktmpdir { |dir| assert_raises(Rackbench::Error) { run_ab(ab, dir) } }
    assert_equal "ab not found on PATH: run bin/setup (or apt-get install apache2-utils)", error.message
  end

  def test_version
    with_script("echo 'This is ApacheBench, Version 2.3 <$Revision: 1913912 $>'") do |ab|
      assert_equal "2.3", ab.version
    end
  end

  def test_run_parses_the_report_and_the_csv_it_wrote
    with_script("cat '#{FIXTURES}/ok.txt'; cp '#{FIXTURES}/ok.csv.txt' \"$1\"", csv_arg: true) do |ab, dir|
      result = run_ab(ab, dir)
      assert_equal 74, result.requests
      assert_in_delta 56.177, result.latency_ms["max"]
      assert_equal ab.command(url: URL, concurrency: 2, duration: 1), result.command
    end
  end

  def test_run_raises_abs_own_message_and_ignores_older_log_lines
    with_script("echo 'apr_pollset_poll: The timeout specified has expired (70007)' >&2; exit 119") do |ab, dir|
      File.write(File.join(dir, "load.log"), "Complete requests: 5\n")
      error = assert_raises(Rackbench::Error) { run_ab(ab, dir) }
      assert_match(/\Aab gave up: no connection got an answer within its -s timeout \(30 s\)/, error.message)
    end
  end

  private

  def run_ab(ab, dir)
    ab.run(url: URL, concurrency: 2, duration: 1, log_path: File.join(dir, "load.log"))
  end

  # A stand-in ab: a shell script with the given body. With csv_arg, $1 is
  # the value of its -e option (a path relative to its working directory).
  def with_script(body, csv_arg: false)
    prelude = csv_arg ? "while [ \"$1\" != -e ]; do shift; done; shift\n" : ""
    with_fake_program("ab", "#{prelude}#{body}") { |path, dir| yield Ab.new(binary: path), dir }
  end
end
