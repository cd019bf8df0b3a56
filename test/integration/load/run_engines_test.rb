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

  def run_with(engine)
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "--engine", engine, "-s", "puma x1:2", "-e", "/pause/0.05", "-c", "2",
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
end
