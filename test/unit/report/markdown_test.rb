# frozen_string_literal: true

require "test_helper"
require "rackbench/report/markdown"
require "rackbench/store/run_dir"
require_relative "run_fixture"

class ReportMarkdownTest < Minitest::Test
  def render(trials: nil)
    dir = File.join(tmpdir, "run")
    trials ? Rackbench::RunFixture.write(dir, trials: trials) : Rackbench::RunFixture.full_run(dir)
    Rackbench::Report::Markdown.new(Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))).render
  end

  def test_one_table_per_endpoint_with_the_cell_figures
    md = render
    assert_includes md, "| /hello | c=1 | c=8 |\n| --- | ---: | ---: |\n"
    # median 10000 req/s, cv 2%, mean latency median 21/4, p99 median 21
    assert_includes md, "| puma x2:3 | **5000** ±2% · 5.25 ms / 21 ms | **10000** ±2% · 5.25 ms / 21 ms |"
    assert_includes md, "| /pause/0.05 | c=1 | c=8 |"
    assert_includes md, "- thin (repetition 1): thin did not answer within 60 s"
    assert_match(/closed-loop .*coordinated omission/, md)
    assert_includes md, "puma 8.0.2, unicorn 6.1.0"
  end

  def test_escapes_labels_and_flags_errors
    trials = [Rackbench::RunFixture.trial(setup: "a|b <i>", endpoint: "/x", concurrency: 1, repetition: 1, rps: 50, errors: 3, mean: 20.0)]
    md = render(trials: trials)
    assert_includes md, "| a\\|b \\<i\\> | **50.0** · 20 ms / 10 ms ⚠ 3 errors |"
  end
end
