# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/clock"

# A tiny real tune: Unicorn only, 200 MiB, one IO-bound endpoint, a minute.
class TuneIntegrationTest < Minitest::Test
  def test_tunes_unicorn_workers_within_the_time_budget_and_writes_its_evidence
    dir = File.join(tmpdir, "tune")
    started = Rackbench::Clock.now
    status, out, err = run_cli("tune", "--servers", "unicorn", "--memory-budget", "200MiB", "--slo-p99", "500ms", "-e", "/pause/0.02",
                               "--time-budget", "60s", "-o", dir)
    elapsed = Rackbench::Clock.now - started
    assert_equal 0, status, err
    assert_operator elapsed, :<, 75, "60 s budget, plus boot/stop of the last setup and the report"

    rec = JSON.parse(File.read(File.join(dir, "recommendation.json")))
    assert_match(/\Aunicorn x[1-4]\z/, rec["setup"])
    assert_operator rec["workers"], :>=, 2, "more workers serve more 20 ms requests at once"
    # Round 3 (the finalists' paired rounds) ran and logged its order: then the recommendation is
    # "confirmed" when its winner held the SLO in most rounds, else "unconfirmed"; the time budget
    # ended tune before it: the knees alone ("knee").
    round3 = File.readlines(File.join(dir, "tune.jsonl")).map { |l| JSON.parse(l) }.any? { |r| r["type"] == "round" && r["round"] == 3 }
    expected = if round3 then rec.dig("confirmation", "holds") ? "confirmed" : "unconfirmed" else "knee" end
    assert_equal expected, rec["evidence"], "round 3 #{round3 ? 'ran' : 'did not run'}: #{rec['reason']}"
    assert_operator rec["elapsed_s"], :<=, 62
    assert_kind_of Array, rec["decisions"]
    if round3
      confirms = File.readlines(File.join(dir, "tune.jsonl")).map { |l| JSON.parse(l) }.select { |r| r["type"] == "confirm" }
      at_rate = confirms.select { |r| r["rate"] == rec.dig("confirm", "rate") }
      assert_equal rec.dig("confirm", "rounds"), at_rate.size, "round 3: its rounds at the rate recommended, each logged"
    end
    refute_match(/significant|within noise/, out)
    config = File.read(File.join(dir, "config", "unicorn.rb"))
    assert_includes config, "worker_processes #{rec['workers']}\n"

    assert_equal "tune", JSON.parse(File.read(File.join(dir, "meta.json")))["command"]
    rows = File.readlines(File.join(dir, "tune.jsonl")).map { |l| JSON.parse(l) }
    assert(rows.any? { |r| r["type"] == "footprint" && r["per_worker_mb"].to_f.positive? })
    assert_equal [1, 2], rows.select { |r| r["type"] == "round" }.map { |r| r["round"] }.first(2)
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal %w[closed open], trials.map { |t| t["loop"] }.uniq.sort

    assert_match(/^Recommended: unicorn x\d — /, out)
    assert_match(/^Throughput vs memory \(\* = on the Pareto front/, out)
    assert_match(/^\* unicorn x\d +[\d.]+ /, out)
    assert_match(/^Report: .*report\.html$/, err)
    assert_match(%r{config: .*config/unicorn\.rb}, out)
    assert_match(%r{^round 2/3: \d+ setups? left, leader unicorn x\d \(~[\d.]+ req/s\)$}, err, "under 100 req/s: one decimal")
    assert File.size(File.join(dir, "report.html")).positive?

    status, table, = run_cli("report", dir)
    assert_equal 0, status
    assert_match(/unicorn x/, table)
  end
end
