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

  # Issues 35 and 46: the streamed document is byte for byte what one
  # JSON.pretty_generate of it gives, cells of one repetition and of
  # several, figures of every kind, trials read packed.
  def test_the_streamed_document_is_the_pretty_generated_one
    full = Rackbench::RunFixture.full_run(File.join(tmpdir, "full"))
    odd = [1.0e12, 1.0e-05, 0.1 + 0.2, 3, 2**40, 0.0, -0.0, 1234.5678]
    trials = odd.each_with_index.flat_map do |value, i|
      Array.new(i.even? ? 1 : 3) do |r|
        Rackbench::RunFixture.trial(setup: "puma x2:3", endpoint: "/e#{i}", concurrency: 8, repetition: r + 1, rps: value,
                                    p99: value.is_a?(Float) ? value.abs : 7.0, memory: { "pss_total_mb" => value, "rss_sum_mb" => nil },
                                    cpu: r.zero? ? { "server_pct" => value } : {})
      end
    end
    odd_run = Rackbench::RunFixture.write(File.join(tmpdir, "odd"), trials: trials, setups: [Rackbench::RunFixture.ok_setup("puma x2:3")])
    [full, odd_run].each do |dir|
      report = Rackbench::Report::JsonDoc.new(Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir)))
      text = report.render
      assert_equal JSON.pretty_generate(report.document) + "\n", text, dir
      assert_equal JSON.parse(text)["cells"].size, report.document["cells"].size
    end
  end

  # A run of several takes per boot (--per-boot) has its variance split
  # (the others are not decoded for it: issue 46).
  def test_a_run_of_takes_splits_the_variance_between_boots_and_takes
    trials = [[1, 1, 100.0], [1, 2, 104.0], [2, 1, 90.0], [2, 2, 95.0], [3, 1, 110.0], [3, 2, 111.0]].map do |rep, take, rps|
      Rackbench::RunFixture.trial(setup: "puma x2:3", endpoint: "/hello", concurrency: 8, repetition: rep, rps: rps)
                           .merge("take" => take, "key" => "puma x2:3|/hello|8|#{rep}|t#{take}")
    end
    dir = Rackbench::RunFixture.write(File.join(tmpdir, "takes"), trials: trials, setups: [Rackbench::RunFixture.ok_setup("puma x2:3")])
    data = Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))
    split = JSON.parse(Rackbench::Report::JsonDoc.new(data).render)["boot_variance"]
    assert_equal [["/hello", "puma x2:3", 3, 2.0]], split.map { |v| v.values_at("endpoint", "setup", "boots", "takes_per_boot") }
    assert_match(/between boots/, Rackbench::Report::BootVarianceNote.lines(data.cells, setups: data.setup_rows, config: {}).join)
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
  # Issue 42: a run that raced its setups (--decide, three or more) has
  # "races", one per cell, with the eliminations the answer says; a run
  # that did not race has no such key (the first test's key list).
  def test_a_race_has_its_cells_races
    rng = Random.new(3)
    trials = { "thin" => 1500.0, "puma x2:5" => 1000.0, "unicorn x2" => 700.0 }.flat_map do |setup, base|
      values = Array.new(6) { base * Math.exp(0.01 * (rng.rand - 0.5)) }
      Rackbench::RunFixture.repetitions(values, little: true, setup: setup, endpoint: "/hello", concurrency: 8)
    end
    meta = Rackbench::RunFixture::META.merge("config" => { "decide" => true, "max_rounds" => 6, "repeat" => 1 })
    dir = Rackbench::RunFixture.write(File.join(tmpdir, "race"), trials: trials, meta: meta)
    d = JSON.parse(Rackbench::Report::JsonDoc.new(Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))).render)
    assert_equal %w[decisions races calibration], d.keys & %w[decisions races calibration]
    assert_equal 1, d["races"].size
    race = d["races"].first
    assert_equal ["/hello", 8, "winner", "thin", ["thin"]], race.values_at("endpoint", "level", "outcome", "leader", "contenders")
    assert_equal ["puma x2:5", "unicorn x2"], race["eliminated"].keys.sort
    assert_equal %w[thin slower], race.dig("eliminated", "puma x2:5").values_at("a", "outcome")
    assert_operator race.dig("eliminated", "puma x2:5", "at_round"), :>=, 2
  end
end
