# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/report/json_doc"
require "rackbench/store/run_dir"
require_relative "run_fixture"

class ReportJsonDocTest < Minitest::Test
  def doc
    dir = Rackbench::RunFixture.full_run(File.join(tmpdir, "run"))
    JSON.parse(Rackbench::Report::JsonDoc.new(Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))).render)
  end

  def test_schema_sections_and_cell_summaries
    d = doc
    assert_equal "rackbench.report/1", d["schema"]
    assert_equal %w[schema generated_by run_dir meta method setups cells decisions calibration trials], d.keys
    assert_equal [], d["calibration"], "a run without calibration.jsonl"
    assert_equal "bench-host", d.dig("meta", "hostname")
    assert_equal 24, d["trials"].size
    assert_equal 3, d["setups"].size
    assert_equal 8, d["cells"].size
    assert_equal({ "min" => 3, "max" => 3 }, d.dig("method", "repetitions"))
    assert_equal ["closed"], d.dig("method", "loops")

    cell = d["cells"].find { |c| c["endpoint"] == "/hello" && c["setup"] == "puma x2:3" && c["concurrency"] == 8 }
    assert_equal 3, cell["repetitions"]
    rps = cell.dig("metrics", "rps")
    assert_in_delta 10_000.0, rps["median"], 1e-9
    assert_in_delta 200.0, rps["stdev"], 1e-9 # 9800, 10000, 10200
    # 10000 +/- 4.3027 * 200 / sqrt(3)
    assert_in_delta 10_000 - 496.83, rps.dig("ci95", "low"), 0.01
    assert_equal "student-t", rps.dig("ci95", "method")
    assert_in_delta 21.0, cell.dig("metrics", "latency_ms.p99", "median"), 1e-9
    assert_in_delta 120.0, cell.dig("metrics", "memory.pss_total_mb", "median"), 1e-9
    assert_in_delta 70.0, cell.dig("metrics", "cpu.server_pct", "median"), 1e-9
  end

  # One decision per cell x metric x pair: unicorn x2 serves 0.6x puma x2:3's
  # req/s in every round of the fixture, so each is decided, paired.
  def test_decisions_per_cell_metric_and_pair
    decisions = doc["decisions"]
    assert_equal 2 * 2 * 3, decisions.size
    rps = decisions.select { |x| x["metric"] == "rps" }
    assert_equal 4, rps.size
    rps.each do |x|
      assert_equal %w[puma\ x2:3 unicorn\ x2], [x["a"], x["b"]]
      assert_equal "slower", x["outcome"]
      assert_in_delta 0.6, x["ratio"], 1e-3
      assert_operator x["ci_low"], :<=, x["ratio"]
      assert_equal [3, 0.05], [x["rounds"], x["margin"]]
      assert_match(/paired rounds/, x["method"])
    end
    assert_equal %w[slower], decisions.select { |x| x["metric"] == "latency_ms.p99" }.map { |x| x["outcome"] }.uniq
    assert_equal %w[smaller], decisions.select { |x| x["metric"] == "memory.pss_total_mb" }.map { |x| x["outcome"] }.uniq
  end
end
