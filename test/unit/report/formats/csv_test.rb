# frozen_string_literal: true

require "test_helper"
require "csv"
require "rackbench/report/csv_tidy"
require "rackbench/report/csv_pivot"
require "rackbench/store/run_dir"
require_relative "../run_fixture"

class ReportCsvTest < Minitest::Test
  def dataset(memory: true)
    dir = Rackbench::RunFixture.full_run(File.join(tmpdir, "run"), memory: memory)
    Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))
  end

  def test_tidy_has_one_row_per_trial_with_its_values
    rows = CSV.parse(Rackbench::Report::CsvTidy.new(dataset).render, headers: true)
    assert_equal 24, rows.size
    row = rows.find { |r| r["setup"] == "unicorn x2" && r["endpoint"] == "/pause/0.05" && r["concurrency"] == "8" && r["repetition"] == "2" }
    assert_equal "120.0", row["rps"] # 100 * 0.6 * 2
    assert_equal "35.0", row["latency_ms.p99"] # 21 / 0.6
    assert_equal "closed", row["loop"]
    assert_equal "72.0", row["memory.pss_total_mb"]
    assert_equal "20.0", row["cpu.client_pct"]
    assert_equal "0", row["errors.status"]
  end

  def test_tidy_leaves_out_sampling_columns_when_nothing_was_sampled
    header = CSV.parse_line(Rackbench::Report::CsvTidy.new(dataset(memory: false)).render)
    refute(header.any? { |h| h.start_with?("memory.", "cpu.") })
    assert_includes header, "latency_ms.p99.9"
  end

  def test_endpoint_pivot_is_setups_by_concurrency_per_metric
    blocks = pivot_blocks(Rackbench::Report::CsvPivot.new(dataset, by: :endpoint).render)
    rps = blocks.fetch(["/hello", "req/s (median)"])
    assert_equal ["setup \\ concurrency", "1", "8"], rps[0]
    assert_equal ["puma x2:3", "5000.0", "10000.0"], rps[1]
    assert_equal ["unicorn x2", "3000.0", "6000.0"], rps[2]
    p99 = blocks.fetch(["/pause/0.05", "p99 latency, ms (median)"])
    assert_equal ["puma x2:3", "21.0", "21.0"], p99[1]
    assert blocks.key?(["/hello", "PSS footprint, MiB (median)"])
  end

  def test_concurrency_pivot_is_endpoints_by_setup_per_metric
    blocks = pivot_blocks(Rackbench::Report::CsvPivot.new(dataset, by: "concurrency").render)
    rps = blocks.fetch(["concurrency 8", "req/s (median)"])
    assert_equal ["endpoint \\ setup", "puma x2:3", "unicorn x2"], rps[0]
    assert_equal ["/hello", "10000.0", "6000.0"], rps[1]
    assert_equal ["/pause/0.05", "200.0", "120.0"], rps[2]
    assert_equal 2, blocks.keys.map(&:first).uniq.size
  end

  # Issue 46, P6 (formula injection, OWASP's "CSV Injection"): a text cell
  # a spreadsheet would read as a formula (=, +, -, @, tab, CR first) is
  # prefixed with a single quote, in the tidy CSV and both pivots; numbers,
  # negative ones too, stay numbers.
  def test_text_a_spreadsheet_would_run_is_neutralised_and_numbers_are_not
    dir = File.join(tmpdir, "run")
    hostile = { "=HYPERLINK(\"http://x\")" => "+cmd|' /C calc'!A0", "@SUM(1)" => "-2+3" }
    trials = hostile.flat_map do |setup, endpoint|
      Rackbench::RunFixture.repetitions([100.0, 110.0], setup: setup, endpoint: endpoint, concurrency: 2).map do |t|
        t.merge("loop" => "\tclosed", "engine" => "\rwrk", "started_at" => "-1", "bytes" => -5)
      end
    end
    Rackbench::RunFixture.write(dir, trials: trials)
    data = Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))
    rows = CSV.parse(Rackbench::Report::CsvTidy.new(data).render, headers: true)
    assert_equal ["'=HYPERLINK(\"http://x\")", "'+cmd|' /C calc'!A0", "'\tclosed", "'\rwrk", "-1", "-5"],
                 rows.first.fields("setup", "endpoint", "loop", "engine", "started_at", "bytes")
    assert_equal "'@SUM(1)", rows.to_a.last[0]
    assert_equal "'-2+3", rows.to_a.last[4]
    %w[endpoint concurrency].each do |by|
      cells = CSV.parse(Rackbench::Report::CsvPivot.new(data, by: by).render).flatten.compact
      assert_empty cells.grep(/\A[=+@\t\r]|\A-(?!\d+(\.\d+)?\z)/), "pivot by #{by}: #{cells.uniq.inspect}"
      assert_includes cells, "'=HYPERLINK(\"http://x\")"
      assert_includes cells, "'+cmd|' /C calc'!A0"
    end
  end

  # {[title, metric] => [header, rows...]} from blank-line separated blocks.
  def pivot_blocks(text)
    CSV.parse(text).slice_when { |row, _| row.empty? }.each_with_object({}) do |block, out|
      block = block.reject(&:empty?)
      out[block.first] = block.drop(1)
    end
  end
end
