# frozen_string_literal: true

require "test_helper"
require "rackbench/load/wrk"
require "rackbench/load/ab"
require "rackbench/load/siege"
require "rackbench/server"
require "rackbench/process_control/server_instance"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/arena"
require_relative "../../support/engine_contract"

# Real load engines against a real server: the arena app under "puma x1:4"
# on 127.0.0.1 (a free port), booted by ProcessControl::ServerInstance and stopped in
# ensure. Each run lasts 1-2 s with a 5 s timeout.
module ArenaServer
  def with_arena
    instance = Rackbench::ProcessControl::ServerInstance.new(
      adapter: Rackbench::Server.adapter("puma"), setup: Rackbench::Setup.parse("puma x1:4"),
      app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free, dir: tmpdir,
      ready_path: Rackbench::Workload::Arena::READY_PATH
    )
    instance.start
    yield instance
  ensure
    instance&.stop
  end
end

# The same setup measured by all three engines. /pause/0.05 holds each of
# Puma's 4 threads for 50 ms, so 4 connections can get at most
# 4 / 0.05 = 80 responses per second, whatever the engine; each engine's
# figure must be within 25 % of that.
class EnginesAgreeTest < Minitest::Test
  include ArenaServer

  ENGINES = { "wrk" => Rackbench::Load::Wrk.new, "ab" => Rackbench::Load::Ab.new,
              "siege" => Rackbench::Load::Siege.new }.freeze
  CONCURRENCY = 4
  PAUSE_S = 0.05
  EXPECTED_RPS = CONCURRENCY / PAUSE_S

  def test_the_same_setup_measured_by_all_three_engines
    ENGINES.each { |name, engine| require_tool!(name, engine.available?) }

    results = with_arena do |server|
      ENGINES.to_h do |name, engine|
        [name, engine.run(url: server.url("/pause/#{PAUSE_S}"), concurrency: CONCURRENCY, duration: 2,
                          timeout: 5, log_path: File.join(tmpdir, "#{name}.log"))]
      end
    end
    results.each { |name, result| check(name, result) }
  end

  private

  def check(name, result)
    figures = "#{name}: #{result.requests} requests in #{result.duration_s} s = #{result.rps.round(1)}/s, " \
              "mean #{result.latency_ms['mean']&.round(2)} ms, errors #{result.errors}"
    assert_operator result.requests, :>, 0, figures
    assert_in_delta EXPECTED_RPS, result.rps, EXPECTED_RPS * 0.25, figures
    assert_equal 0, result.errors["status"], figures
    assert_operator result.error_total, :<=, result.requests / 100, figures
    assert_in_delta PAUSE_S * 1000, result.latency_ms["mean"], PAUSE_S * 1000 * 0.25, figures
  end
end

# The engine contract for ab and siege against the arena under Puma. Both
# leave some latency keys nil (ab has no p99.9; siege has no percentiles
# nor stdev), so the contract's latency test is replaced by one that checks
# what each engine does give.
module RealEngineContract
  include EngineContract
  include ArenaServer

  attr_reader :url

  def setup
    require_tool!(engine.name, engine.available?)
  end

  def around_contract_run
    with_arena do |server|
      @url = server.url(contract_path)
      yield
    end
  end

  def contract_path
    "/hello"
  end

  def test_contract_run_reports_every_latency_key_in_order
    latency = contract_result.latency_ms
    assert_equal EngineContract::LATENCY_KEYS.sort, latency.keys.sort
    given = latency.compact
    assert_equal latency.keys - missing_latency_keys, given.keys, "nil only for #{missing_latency_keys}"
    assert(given.values.all?(Float), "latency figures should be Floats: #{latency.inspect}")
    ordered = given.values_at(*(%w[min p50 p75 p90 p99 p99.9 max] & given.keys))
    assert_equal ordered.sort, ordered, "latency should rise from min through percentiles to max"
  end
end

class AbContractTest < Minitest::Test
  include RealEngineContract

  def engine
    @engine ||= Rackbench::Load::Ab.new
  end

  def missing_latency_keys
    %w[p99.9]
  end
end

class SiegeContractTest < Minitest::Test
  include RealEngineContract

  def engine
    @engine ||= Rackbench::Load::Siege.new
  end

  def missing_latency_keys
    %w[stdev p50 p75 p90 p99 p99.9]
  end

  # siege counts bytes in 0.01 MB steps: a 124 kB page makes them show.
  def contract_path
    "/template-render"
  end
end
