# frozen_string_literal: true

require "test_helper"
require "stringio"
require "rackbench/report/split_table"
require "rackbench/report/table"

# Where a request's time went, per cell, from the probe's split.
class SplitTableTest < Minitest::Test
  def trial(setup, split, rps: 300.0)
    { "setup" => setup, "endpoint" => "/articles", "concurrency" => 16, "loop" => "closed", "repetition" => 1,
      "rps" => rps, "requests" => 600, "latency_ms" => { "mean" => 50.0, "p99" => 150.0 }, "errors" => {},
      "error_total" => 0, "split" => split }
  end

  RAILS = { "requests" => 600, "wall_ms" => 3.6, "cpu_ms" => 2.5, "gc_ms" => 0.5, "waiting_ms" => 1.1,
            "sql_ms" => 0.2, "sql_per_request" => 1.0, "view_ms" => 0.8, "view_per_request" => 1.0,
            "cpu_method" => "thread" }.freeze

  def test_one_row_per_cell_with_each_figure_and_the_gvl_threads
    io = StringIO.new
    plain = RAILS.except("sql_ms", "sql_per_request", "view_ms", "view_per_request")
    Rackbench::Report::SplitTable.new([trial("puma x1:8", RAILS), trial("unicorn x2", plain)], io: io).render
    lines = io.string.lines.map(&:rstrip)
    assert_match(/\Atime per request \(ms\)\s+CPU\s+GC\s+SQL\s+views\s+waiting\s+wall\s+1\/f threads\z/, lines[1])
    assert_match(%r{\A/articles c=16 puma x1:8\s+2\.5\s+0\.50\s+0\.20\s+0\.80\s+1\.1\s+3\.6\s+1\.4\z}, lines[3])
    assert_match(%r{\A/articles c=16 unicorn x2\s+2\.5\s+0\.50\s+-\s+-\s+1\.1\s+3\.6\s+1\.4\z}, lines[4], "no Active Record: -")
  end

  def test_nothing_without_a_split_and_only_when_asked_in_the_table
    io = StringIO.new
    Rackbench::Report::SplitTable.new([trial("puma x1:8", nil)], io: io).render
    assert_equal "", io.string
    [[{}, false], [{ split: true }, true], [{ why: true }, true]].each do |opts, shown|
      out = StringIO.new
      Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: [trial("puma x1:8", RAILS)]), io: out, **opts).render
      assert_equal shown, out.string.include?("time per request (ms)"), opts.inspect
    end
  end
end
