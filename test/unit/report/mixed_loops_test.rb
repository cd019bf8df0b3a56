# frozen_string_literal: true

require "test_helper"
require "rackbench/report/markdown"
require "rackbench/report/table"
require "rackbench/store/run_dir"
require_relative "run_fixture"

# A run that mixes closed and open loop (rackbench capacity stores both):
# each level is labelled by its own trials' loop, in Markdown and in the
# terminal; and a run whose setups all failed still lists the failures.
class MixedLoopsTest < Minitest::Test
  def mixed_trials
    closed = [1, 8].map do |c|
      Rackbench::RunFixture.trial(setup: "puma x2:3", endpoint: "/x", concurrency: c, repetition: 1, rps: 100.0 * c, mean: 10.0)
    end
    open = [8.0, 200.0].map do |r|
      Rackbench::RunFixture.trial(setup: "puma x2:3", endpoint: "/x", concurrency: nil, repetition: 1, rps: r * 0.99)
                           .merge("rate" => r, "loop" => "open", "key" => "puma x2:3|/x|r=#{r}|1")
    end
    closed + open
  end

  def dataset(trials:, setups: [])
    dir = Rackbench::RunFixture.write(File.join(tmpdir, "run"), trials: trials, setups: setups)
    Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))
  end

  def test_markdown_labels_each_level_by_its_loop
    md = Rackbench::Report::Markdown.new(dataset(trials: mixed_trials)).render
    assert_includes md, "| /x | c=1 | c=8 | r=8 | r=200 |\n"
    assert_includes md, "| puma x2:3 | **100** · 10 ms / 10 ms | **800** · 10 ms / 10 ms | **7.9** · 2.50 ms / 10 ms | **198** · "
    assert_match(/closed-loop \(measured from each request's send; hides coordinated omission\) at c= levels, open-loop .* at r= levels/, md)
  end

  def test_terminal_labels_each_level_by_its_loop_and_notes_both_loops
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: JSON.parse(JSON.generate(mixed_trials))), io: io).render
    header = io.string.lines.find { |l| l.start_with?("/x") }
    assert_equal %w[/x c=1 c=8 r=8 r=200], header.split
    assert_match(/Latency is closed-loop/, io.string)
    assert_match(/Latency is open-loop/, io.string)
  end

  def test_markdown_of_a_run_whose_setups_all_failed_lists_them
    failed = { "setup" => "puma x1:1", "repetition" => 1, "status" => "failed",
               "reason" => "verification of / failed: status 301 redirects to https://127.0.0.1:3000/" }
    md = Rackbench::Report::Markdown.new(dataset(trials: [], setups: [failed])).render
    assert_includes md, "No trials are stored"
    assert_includes md, "**Failed setups**"
    assert_includes md, "- puma x1:1 (repetition 1): verification of / failed: status 301 redirects to https://127.0.0.1:3000/"
  end
end
