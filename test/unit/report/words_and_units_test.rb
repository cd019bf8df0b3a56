# frozen_string_literal: true

require "test_helper"
require "stringio"
require "rackbench/report/progress"
require "rackbench/report/html"
require "rackbench/report/markdown"
require "rackbench/stats/metrics"
require "rackbench/store/run_dir"
require_relative "run_fixture"

# Small words of issue 46, item 9.5: counts with their noun ("1 repetition",
# "1 error"), a setup's chart colour that follows its label, memory in MiB
# in compare as in run, and an error counted with the word for its kind.
class WordsAndUnitsTest < Minitest::Test
  F = Rackbench::RunFixture

  def test_counts_agree_with_their_noun
    nf = Rackbench::Report::NumberFormat
    assert_equal ["1 error", "2 errors", "0 errors", "1 repetition"],
                 [nf.count(1, "error"), nf.count(2, "error"), nf.count(0, "error"), nf.count(1, "repetition")]
    trials = [F.trial(setup: "thin", endpoint: "/x", concurrency: 1, repetition: 1, rps: 10.0, errors: 1)]
    store = Rackbench::Store::RunDir.open(F.write(File.join(tmpdir, "run"), trials: trials))
    data = Rackbench::Report::Dataset.from_store(store)
    html = Rackbench::Report::Html.new(data).render
    assert_includes html, "1 repetition"
    refute_match(/\b1 repetitions\b|\b1 errors\b/, html)
    md = Rackbench::Report::Markdown.new(data).render
    assert_includes md, "⚠ 1 error"
    refute_includes md, "1 errors"
  end

  # The same setups in another random order keep their colours.
  def test_a_setups_colour_follows_its_label_not_the_run_order
    chart = Rackbench::Report::Html::ChartData
    one = chart.new(Struct.new(:setups).new(["puma x2:5", "unicorn x2", "thin"]))
    two = chart.new(Struct.new(:setups).new(["thin", "unicorn x2", "puma x2:5"]))
    assert_equal(%w[puma\ x2:5 unicorn\ x2 thin].map { |s| one.setup_color(s) }, %w[puma\ x2:5 unicorn\ x2 thin].map { |s| two.setup_color(s) })
    assert_equal 3, %w[puma\ x2:5 unicorn\ x2 thin].map { |s| one.setup_color(s) }.uniq.size
  end

  # The sampler's *_mb are bytes / 1024^2: run says MiB, and so does compare.
  def test_memory_is_mib_in_compare_as_in_run
    assert_equal "MiB", Rackbench::Stats::Metrics["memory.pss_total_mb"].unit
    assert_equal "MiB", Rackbench::Stats::Metrics["memory.swap_mb"].unit
    _status, out, err = run_cli("compare", F.full_run(File.join(tmpdir, "a")), F.full_run(File.join(tmpdir, "b")))
    assert_match(/PSS footprint +120\.0 MiB/, out, err)
    refute_match(/\bMB\b/, out)
  end

  # A read error the server made is counted with its word (wrk's artifacts are not errors).
  def test_the_progress_line_names_the_kind_of_each_error
    io = StringIO.new
    progress = Rackbench::Report::Progress.new(io)
    base = { "setup" => "unicorn x2", "endpoint" => "/hello", "concurrency" => 8, "rps" => 100.0, "loop" => "closed",
             "latency_ms" => { "mean" => 1.0, "p99" => 2.0 } }
    progress.trial_finished(base.merge("error_total" => 1, "errors" => { "read" => 5, "status" => 0 },
                                       "error_artifacts" => { "read_close_delimited" => 4 }), 1, 2)
    progress.trial_finished(base.merge("error_total" => 3, "errors" => { "read" => 1, "status" => 2 }), 2, 2)
    lines = io.string.lines
    assert_match(/\(closed-loop\)  1 error: 1 read \(a connection closed before its response\)$/, lines[0])
    assert_match(/\(closed-loop\)  3 errors: 2 with HTTP status >= 400, 1 read \(a connection closed before its response\)$/, lines[1])
  end
end
