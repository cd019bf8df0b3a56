# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/load/h2load"
require "rackbench/server"
require "rackbench/process_control/server_instance"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/arena"
require_relative "../../support/engine_contract"

# h2load against real servers over h2c (HTTP/2 in cleartext, prior
# knowledge): the arena app under "falcon x2" on 127.0.0.1 (a free port),
# booted by ProcessControl::ServerInstance and stopped in ensure; 1 s of load.
module FalconArena
  def with_falcon
    instance = Rackbench::ProcessControl::ServerInstance.new(
      adapter: Rackbench::Server.adapter("falcon"), setup: Rackbench::Setup.parse("falcon x2"),
      app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free, dir: tmpdir,
      ready_path: Rackbench::Workload::Arena::READY_PATH
    )
    instance.start
    yield instance
  ensure
    instance&.stop
  end
end

class H2loadContractTest < Minitest::Test
  include EngineContract
  include FalconArena

  attr_reader :url

  def setup
    require_tool!("h2load", engine.available?)
  end

  def engine
    @engine ||= Rackbench::Load::H2load.new
  end

  def around_contract_run
    with_falcon do |server|
      @url = server.url("/hello")
      yield
    end
  end

  def test_it_spoke_h2c
    assert_equal "h2c", contract_result.protocol
  end
end

# The physics, as EnginesAgreeTest checks wrk, ab and siege: /pause/0.05
# holds each request 50 ms, and Falcon's fibers overlap the waits, so
# 4 requests in flight (4 connections x 1 stream, or 2 x 2 multiplexed)
# give 4 / 0.05 = 80 responses per second of 50 ms each.
class H2loadPhysicsTest < Minitest::Test
  include FalconArena

  PAUSE_S = 0.05
  CONCURRENCY = 4
  EXPECTED_RPS = CONCURRENCY / PAUSE_S

  def test_requests_in_flight_set_the_rate_with_or_without_multiplexing
    require_tool!("h2load", Rackbench::Load::H2load.new.available?)
    results = with_falcon do |server|
      [1, 2].to_h do |streams|
        [streams, Rackbench::Load::H2load.new(streams: streams).run(
          url: server.url("/pause/#{PAUSE_S}"), concurrency: CONCURRENCY, duration: 1, timeout: 5,
          log_path: File.join(tmpdir, "h2load-#{streams}.log")
        )]
      end
    end
    results.each do |streams, result|
      figures = "streams #{streams}: #{result.requests} in #{result.duration_s} s, mean #{result.latency_ms['mean']} ms, " \
                "errors #{result.errors}"
      assert_in_delta EXPECTED_RPS, result.rps, EXPECTED_RPS * 0.25, figures
      assert_in_delta PAUSE_S * 1000, result.latency_ms["mean"], PAUSE_S * 1000 * 0.25, figures
      assert_operator result.latency_ms["min"], :>=, PAUSE_S * 1000, figures
      assert_equal 0, result.error_total, figures
    end
  end
end

# `rackbench run --engine h2load`, end to end, and its refusal of a setup
# that serves HTTP/1.1 only.
class H2loadRunTest < Minitest::Test
  def test_falcon_over_h2c
    require_tool!("h2load", Rackbench::Load::H2load.new.available?)
    out = File.join(tmpdir, "run")
    status, _stdout, err = run_cli("run", "-s", "falcon x2", "-e", "/hello", "-c", "8", "-d", "1",
                                   "--engine", "h2load", "-q", "-o", out)
    assert_equal 0, status, err
    trials = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal 1, trials.size
    trial = trials.first
    figures = "#{trial['requests']} requests in #{trial['duration_s']} s = #{trial['rps']}/s, errors #{trial['errors']}"
    assert_equal "h2load", trial["engine"]
    assert_equal "h2c", trial["protocol"]
    assert_operator trial["requests"], :>, 0, figures
    assert_in_delta trial["requests"] / trial["duration_s"], trial["rps"], trial["rps"] * 0.01, figures
    assert_in_delta 1.0, trial["duration_s"], 1e-9, "the -D window"
    assert_equal 0, trial["error_total"], figures
    assert(trial["errors"].values.all?(&:zero?), figures)
    assert_equal "h2load", JSON.parse(File.read(File.join(out, "meta.json"))).dig("engine", "name")
  end

  def test_servers_lists_h2load_and_who_serves_h2c
    require_tool!("h2load", Rackbench::Load::H2load.new.available?)
    status, stdout, err = run_cli("servers")
    assert_equal 0, status, err
    assert_match(/^h2load\s+1\.\d+\.\d+ \(load engine: --engine h2load\)$/, stdout)
    assert_match(/^falcon\s+\d+\.\d+\.\d+ \(also serves h2c: --engine h2load; h2 with --tls\)$/, stdout)
    assert_match(/^puma\s+\d+\.\d+\.\d+$/, stdout)
  end

  def test_a_setup_without_h2c_is_refused_before_anything_boots
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "-s", "puma x2:5", "-e", "/hello", "-c", "8", "-d", "1",
                                  "--engine", "h2load", "-o", out)
    assert_equal 2, status
    assert_equal 1, err.lines.size, err
    assert_match(/\AError: --engine h2load speaks HTTP\/2 in cleartext \(h2c, prior knowledge\), which puma x2:5 cannot serve/,
                 err)
    assert_empty stdout
    refute File.exist?(out), "nothing booted, no run directory"
  end
end
