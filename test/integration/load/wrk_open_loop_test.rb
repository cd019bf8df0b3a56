# frozen_string_literal: true

require "test_helper"
require "rackbench/load"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/arena"
require_relative "../../support/engine_contract"

# The open-loop engine passes the load-engine contract against a real Puma
# (single mode, 4 threads) on the arena's /hello: 200 req/s for 0.75 s
# (wrk runs 1 s) over 4 connections, so the threads' histograms are merged.
class WrkOpenLoopIntegrationTest < Minitest::Test
  include EngineContract

  RATE = 200

  def setup
    require_tool!("wrk", engine.available?)
  end

  def engine
    @engine ||= Rackbench::Load::WrkOpenLoop.new
  end

  attr_reader :url

  def contract_duration
    0.75
  end

  def contract_load
    { rate: RATE, connections: 4 }
  end

  def around_contract_run
    instance = Rackbench::ProcessControl::ServerInstance.new(
      adapter: Rackbench::Server.adapter("puma"), setup: Rackbench::Setup.parse("puma x1:4"),
      app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free, dir: tmpdir,
      ready_path: Rackbench::Workload::Arena::READY_PATH
    ).start
    @url = instance.url("/hello")
    yield
  ensure
    instance&.stop
  end

  def test_every_planned_request_is_sent_and_timed_from_its_planned_time
    result = contract_result
    assert_equal "open", result.loop
    assert_equal (RATE * contract_duration).round, result.planned
    assert_equal [result.planned, 0, 0], [result.requests, result.in_flight, result.unsent]
    assert_in_delta RATE, result.achieved_rate, 0.01
    assert_equal 4, result.connections
    %w[p50 p90 p99 max].each do |key|
      assert_operator result.latency_ms[key], :>=, result.service_ms[key] * 0.998, "latency >= service at #{key}"
    end
    assert_operator result.service_ms["p50"], :<, 50, "a healthy /hello answers in milliseconds"
  end
end
