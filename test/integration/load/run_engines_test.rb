# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/load/ab"
require "rackbench/load/siege"

# `rackbench run --engine ab|siege`, end to end: a real server booted by
# rackbench, one trial of 1 s stored in trials.jsonl. /pause/0.05 on
# "puma x1:2" with 2 connections answers at most 2 / 0.05 = 40 req/s, and
# each response takes 50 ms, whatever the engine measures with.
class RunEnginesTest < Minitest::Test
  EXPECTED_RPS = 2 / 0.05

  def run_with(engine, setup: "puma x1:2")
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "--engine", engine, "-s", setup, "-e", "/pause/0.05", "-c", "2",
                                  "-d", "1", "--warmup", "0", "-q", "-o", out)
    assert_equal 0, status, err
    trials = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal 1, trials.size
    [trials.first, stdout]
  end

  def check(engine, trial, stdout)
    figures = "#{engine}: #{trial['requests']} requests, #{trial['rps']} req/s, latency #{trial['latency_ms']}"
    assert_equal engine, trial["engine"], figures
    assert_equal "/pause/0.05", trial["endpoint"]
    assert_in_delta EXPECTED_RPS, trial["rps"], EXPECTED_RPS * 0.3, figures
    assert_equal 0, trial["error_total"], "#{figures}: #{trial['errors']}"
    assert_in_delta 50.0, trial.dig("latency_ms", "mean"), 15.0, figures
    assert trial["verified"], "verified before load"
    assert_match(%r{^/pause/0.05\s+c=2$}, stdout)
  end

  def test_ab
    require_tool!("ab", Rackbench::Load::Ab.new.available?)
    trial, stdout = run_with("ab")
    check("ab", trial, stdout)
  end

  def test_siege
    require_tool!("siege", Rackbench::Load::Siege.new.available?)
    trial, stdout = run_with("siege")
    check("siege", trial, stdout)
  end

  # siege-close: siege without keep-alive, a new connection per request, as
  # the JRuby post ran it. Unicorn closes every connection after its
  # response, which siege under keep-alive counts as a failure each time
  # (measured: 36 of 36 requests on this plan), so against "unicorn x2" the
  # engine is right only if it really closes: no error, 2 workers / 0.05 s.
  def test_siege_close_against_a_server_that_closes_each_connection
    require_tool!("siege", Rackbench::Load::Siege.new.available?)
    trial, stdout = run_with("siege-close", setup: "unicorn x2")
    check("siege", trial, stdout) # among its checks: no request failed
  end
end
