# frozen_string_literal: true

require "tmpdir"
require "rackbench/load/result"

# Shared tests every load engine passes (like Rack::Lint for engines).
#
# The including class defines:
#   engine  -> the engine under test
#   url     -> a URL a healthy server answers (127.0.0.1 only)
# and may define:
#   engine_without_program       the engine with its program missing
#   around_contract_run { ... }  e.g. start a server, yield, stop it in ensure
#   contract_duration            seconds of load (default 1)
#   contract_concurrency         connections (default 2)
#   contract_load                the load keywords for command/run (default
#                                { concurrency: contract_concurrency }; an
#                                open-loop engine gives { rate: R })
#
# The engine runs once per test class; every test reads that one result.
module EngineContract
  LATENCY_KEYS = %w[min mean stdev max p50 p75 p90 p99 p99.9].freeze
  RUNS = {} # one cached run per test class, filled as tests run

  def around_contract_run
    yield
  end

  def contract_duration
    1
  end

  def contract_concurrency
    2
  end

  def contract_load
    { concurrency: contract_concurrency }
  end

  def contract_run
    RUNS[self.class] ||= Dir.mktmpdir("rackbench-contract") do |dir|
      log_path = File.join(dir, "load.log")
      result = around_contract_run do
        engine.run(url: url, duration: contract_duration, log_path: log_path, **contract_load)
      end
      { result: result, log: File.exist?(log_path) ? File.read(log_path) : nil }
    end
  end

  def contract_result
    contract_run[:result]
  end

  def test_contract_name_is_a_lowercase_word
    assert_match(/\A[a-z][a-z0-9_-]*\z/, engine.name)
  end

  # available? answers for the program, not always yes: the engine that
  # ran here says so, and the same engine whose program is missing says
  # not, has no version, and refuses to run with an Error (one line).
  def test_contract_is_available_only_where_its_program_is
    assert engine.available?, "#{engine.name} should be available for this test"
    missing = engine_without_program
    refute missing.available?, "#{engine.name} without its program should not be available"
    assert_nil missing.version
    e = assert_raises(Rackbench::Error) do
      missing.run(url: "http://127.0.0.1:9/", duration: 1, log_path: File::NULL, **contract_load)
    end
    refute_includes e.message, "\n", "one line: #{e.message}"
  end

  # The engine under test with its program missing (an engine driving an
  # external program takes binary:; another engine overrides this).
  def engine_without_program
    engine.class.new(binary: File.join(Dir.tmpdir, "rackbench-no-such-dir", engine.name))
  end

  def test_contract_version_is_a_dotted_number
    assert_match(/\A\d+(\.\d+)+\z/, engine.version)
  end

  def test_contract_command_is_an_argv_of_strings_ending_with_the_url
    argv = engine.command(url: "http://127.0.0.1:9/", duration: 1, **contract_load)
    assert_kind_of Array, argv
    assert(argv.all?(String), "every argv element should be a String: #{argv.inspect}")
    assert_includes argv, "http://127.0.0.1:9/"
  end

  # The engine's registration (Load.register) says what it runs and which
  # loop it is: the sampler counts the process named there as the client.
  def test_contract_registration_matches_the_engine
    registration = Rackbench::Load.registration(engine.name)
    assert_equal registration.loop, contract_result.loop
    return if registration.process.nil?

    argv = engine.command(url: "http://127.0.0.1:9/", duration: 1, **contract_load)
    assert_equal registration.process, File.basename(argv.first), "the sampler would miss the load generator's CPU"
  end

  def test_contract_run_returns_a_result_named_after_the_engine
    assert_kind_of Rackbench::Load::Result, contract_result
    assert_equal engine.name, contract_result.engine
    assert_includes %w[closed open], contract_result.loop
    assert(contract_result.command.all?(String), "command should be an argv of Strings")
  end

  def test_contract_run_measures_requests_and_rate
    assert_operator contract_result.requests, :>, 0
    assert_operator contract_result.duration_s, :>, 0
    assert_operator contract_result.rps, :>, 0
    assert_operator contract_result.bytes, :>, 0
  end

  # Every key of LATENCY_KEYS (an engine may add more, e.g. "p99.99").
  def test_contract_run_reports_every_latency_key_in_order
    latency = contract_result.latency_ms
    assert_empty LATENCY_KEYS - latency.keys, "latency keys: #{latency.keys}"
    assert(latency.values.all?(Float), "latency figures should be Floats: #{latency.inspect}")
    ordered = latency.values_at("min", "p50", "p75", "p90", "p99", "p99.9", "max")
    assert_equal ordered.sort, ordered, "latency should rise from min through percentiles to max"
  end

  def test_contract_run_reports_every_error_kind
    errors = contract_result.errors
    assert_equal Rackbench::Load::Result::ERROR_KINDS.sort, errors.keys.sort
    assert(errors.values.all?(Integer), "error counts should be Integers: #{errors.inspect}")
    # A healthy server gives (almost) no errors. Not exactly none: under CPU
    # contention wrk 4.1 against Puma 8 now and then counts a read error or
    # two in a few thousand requests.
    assert_operator contract_result.error_total, :<=, contract_result.requests / 100,
                    "a healthy server should give almost no errors: #{errors.inspect}"
  end

  def test_contract_run_writes_its_log
    refute_nil contract_run[:log], "run should write to log_path"
    refute_empty contract_run[:log]
  end
end
