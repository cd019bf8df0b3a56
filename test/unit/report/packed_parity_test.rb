# frozen_string_literal: true

require "test_helper"
require "json"
require "stringio"
require "tmpdir"
require "fileutils"
require "rackbench/store/run_dir"
require "rackbench/report/formats"
require "rackbench/report/html"
require "rackbench/report/markdown"
require "rackbench/report/json_doc"
require "rackbench/report/table"
require "rackbench/report/csv_tidy"
require "rackbench/report/csv_pivot"
require_relative "run_fixture"

# Issue 46: `rackbench report` holds a stored run's trials packed
# (Store::PackedTrials) and reads most of them a field at a time. Every
# format must render exactly what it rendered from the trials as Hashes:
# here a run of real trial records (test/fixtures/store/recorded_trial.jsonl,
# every field a run stores), 2 setups x 2 endpoints x 2 levels x 3 rounds,
# one setup's cells with errors, another's memory and CPU varied.
class PackedParityTest < Minitest::Test
  RECORDED = JSON.parse(File.read(File.expand_path("../../fixtures/store/recorded_trial.jsonl", __dir__)).lines.first)

  def trials
    %w[puma\ x1:2 unicorn\ x2].product(%w[/hello /db], [1, 4], [1, 2, 3]).map.with_index do |(setup, endpoint, level, rep), i|
      rps = (setup.start_with?("puma") ? 2700.0 : 2500.0) + (i * 37 % 101)
      RECORDED.merge("key" => "#{setup}|#{endpoint}|#{level}|#{rep}", "setup" => setup, "server" => setup.split.first,
                     "endpoint" => endpoint, "concurrency" => level, "repetition" => rep, "rps" => rps, "goodput_rps" => rps,
                     "latency_ms" => RECORDED["latency_ms"].transform_values { |v| (v * level * (1 + (i % 3) / 10.0)).round(3) },
                     "error_total" => endpoint == "/db" && setup.start_with?("unicorn") ? 3 : 0,
                     "memory" => RECORDED["memory"].transform_values { |v| v && (v + i).round(2) },
                     "cpu" => RECORDED["cpu"].merge("server_pct" => 50.0 + i))
    end
  end

  def setup
    @dir = Dir.mktmpdir("packed-parity")
    setups = [Rackbench::RunFixture.ok_setup("puma x1:2"), Rackbench::RunFixture.ok_setup("unicorn x2")]
    Rackbench::RunFixture.write(@dir, trials: trials, setups: setups)
    @store = Rackbench::Store::RunDir.open(@dir)
  end

  def teardown
    FileUtils.rm_rf(@dir)
  end

  def dataset
    Rackbench::Report::Dataset.new(meta: @store.meta, trials: @store.trials, setup_rows: @store.setups, path: @store.path,
                                   calibration: @store.calibration)
  end

  def packed(format, **opts)
    Rackbench::Report::Formats.fetch(format).string(@store, opts)
  end

  def test_every_format_renders_the_same_from_packed_trials
    { "html" => Rackbench::Report::Html, "md" => Rackbench::Report::Markdown, "json" => Rackbench::Report::JsonDoc }.each do |name, renderer|
      assert_equal renderer.new(dataset).render, packed(name), name
    end
    assert_equal Rackbench::Report::CsvTidy.new(dataset).render, packed("csv"), "csv"
    %w[endpoint concurrency].each do |by|
      assert_equal Rackbench::Report::CsvPivot.new(dataset, by: by).render, packed("csv", pivot: by), "csv --pivot #{by}"
    end
    [false, true].each do |why|
      io = StringIO.new
      Rackbench::Report::Table.new(dataset, io: io, why: why).render
      assert_equal io.string, packed("table", why: why), "table, why: #{why}"
    end
  end
end
