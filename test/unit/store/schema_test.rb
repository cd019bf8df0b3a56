# frozen_string_literal: true

require "test_helper"
require "rackbench/store/schema"

# Store::Schema: a stored record's fields, nested ones too, checked against
# the types they must have and numbers within reach.
class SchemaTest < Minitest::Test
  S = Rackbench::Store::Schema

  def trial(extra = {})
    { "key" => "k", "setup" => "puma x1:2", "endpoint" => "/", "rps" => 1000.5, "concurrency" => 4,
      "latency_ms" => { "mean" => 1.5, "p99" => 9 }, "errors" => { "read" => 0 },
      "machine" => { "cpu_pct" => 150.0, "window" => "sampler" }, "cpu" => { "server_pct" => 95.1, "cores" => 2 } }.merge(extra)
  end

  def test_a_stored_trial_fits
    assert_nil S.problem(trial, S::TRIAL)
    assert_nil S.problem(trial("rate" => nil, "memory" => nil), S::TRIAL), "nil is an absent figure"
  end

  def test_nested_fields_are_named_by_their_path
    { { "latency_ms" => { "mean" => "x" } } => 'latency_ms.mean is "x", not a number',
      { "machine" => { "cpu_pct" => "x", "window" => "sampler" } } => 'machine.cpu_pct is "x", not a number',
      { "machine" => { "window" => 3 } } => "machine.window is 3, not a string",
      { "cpu" => { "cores" => "two" } } => 'cpu.cores is "two", not a number',
      { "cpu" => "x" } => 'cpu is "x", not a JSON object',
      { "errors" => { "read" => [1] } } => "errors.read is [1], not a number",
      { "concurrency" => 2.5 } => "concurrency is 2.5, not a whole number" }.each do |extra, message|
      assert_equal message, S.problem(trial(extra), S::TRIAL), extra.inspect
    end
  end

  # Issue 46, N27: a trial's queues and balance, as a run writes them, fit;
  # a list's items are named by their index.
  def test_queues_and_balance_fit_as_written_and_are_named_when_wrong
    queues = { "accept" => { "mean" => 0.5, "p95" => 1, "max" => 2, "samples" => 9, "limit" => 1024 },
               "front_accept" => { "unknown" => "no reading" },
               "server" => { "kind" => "puma", "backlog" => { "mean" => 0.0, "samples" => 9 }, "threads" => 5, "workers" => 2 },
               "waiting_mean" => 0.5 }
    balance = { "workers" => [{ "pid" => 12, "cpu_pct" => 50.1, "requests" => 3, "requests_share" => 1.0, "gc_count" => 0 }],
                "requests_source" => "probe", "spread" => nil, "busiest_cpu_pct" => 50.1, "probe" => "off" }
    assert_nil S.problem(trial("queues" => queues, "balance" => balance), S::TRIAL)
    assert_nil S.problem(trial("cpus" => { "server" => "0-2", "client" => "3", "rule" => "auto", "shared" => false }), S::TRIAL)
    assert_nil S.problem(trial("cpus" => { "shared" => true }), S::TRIAL)
    assert_nil S.problem(trial("queues" => { "accept" => { "unknown" => "x" }, "server" => { "unknown" => "y" } },
                               "balance" => { "unknown" => "no worker process was sampled" }), S::TRIAL)
    { { "queues" => [] } => "queues is [], not a JSON object",
      { "queues" => { "front_accept" => { "max" => "9" } } } => 'queues.front_accept.max is "9", not a number',
      { "queues" => { "server" => { "busy_threads" => 1 } } } => "queues.server.busy_threads is 1, not a JSON object",
      { "balance" => { "workers" => {} } } => "balance.workers is {}, not a list",
      { "balance" => { "workers" => [{ "pid" => 1 }, nil] } } => "balance.workers[1] is nil, not a JSON object",
      { "balance" => { "workers" => [{ "requests_share" => "x" }] } } => 'balance.workers[0].requests_share is "x", not a number',
      { "cpus" => 42 } => "cpus is 42, not a JSON object", { "cpus" => { "server" => [0] } } => "cpus.server is [0], not a string" }.each do |extra, message|
      assert_equal message, S.problem(trial(extra), S::TRIAL), extra.inspect
    end
  end

  def test_numbers_beyond_any_measurement_are_refused
    assert_equal "rps is 1.0e+308, beyond any measurement", S.problem(trial("rps" => 1e308), S::TRIAL)
    assert_equal "latency_ms.p99 is -1.0e+300, beyond any measurement",
                 S.problem(trial("latency_ms" => { "p99" => -1e300 }), S::TRIAL)
    assert_nil S.problem(trial("rps" => 9.9e14), S::TRIAL)
  end

  def test_meta_needs_objects_where_commands_read_objects
    assert_nil S.problem({ "rackbench" => "0.1.0", "plan" => {}, "config" => {} }, S::META)
    assert_equal 'config is "x", not a JSON object', S.problem({ "config" => "x" }, S::META)
    assert_equal "rackbench is 1, not a string", S.problem({ "rackbench" => 1 }, S::META)
    assert_equal "config.app is 42, not a string", S.problem({ "config" => { "app" => 42 } }, S::META)
    assert_nil S.problem({ "config" => { "app" => "/srv/app", "setups" => [] } }, S::META)
  end
end
