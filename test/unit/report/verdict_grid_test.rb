# frozen_string_literal: true

require "test_helper"
require "stringio"
require "rackbench/report/table"
require "rackbench/report/verdict_grid"
require_relative "run_fixture"

# The terminal's verdicts: a grid of short labels (setups x levels per
# endpoint) with a legend of the labels shown; the full reasons only with
# `rackbench report RUN_DIR --why`.
class VerdictGridTest < Minitest::Test
  F = Rackbench::RunFixture

  # A sampled trial on 2 cores: server CPU, queue and in-flight figures decide its verdict.
  def record(setup, c, workers:, threads:, server:, waiting:, rps:, busy: nil)
    mean = 1000.0 * c / rps
    F.trial(setup: setup, endpoint: "/x", concurrency: c, repetition: 1, rps: rps, mean: mean, p99: mean * 1.2).merge(
      "workers" => workers, "threads" => threads, "duration_s" => 5.0, "processes" => { "worker_restarts" => 0 },
      "error_rate" => 0.0,
      "cpu" => { "server_pct" => server, "client_pct" => 5.0, "cores" => 2, "client_machine_share" => 0.025 },
      "machine" => { "cpu_pct" => server + 8 },
      "queues" => { "waiting_mean" => waiting, "accept" => { "mean" => waiting, "max" => waiting.ceil },
                    "server" => busy ? { "kind" => "puma", "busy_threads" => { "mean" => busy }, "backlog" => { "mean" => 0.0 } } : {} },
      "balance" => { "workers" => Array.new(workers) { |i| { "pid" => 10 + i, "requests_share" => 1.0 / workers } },
                     "busiest_cpu_pct" => server / workers }
    )
  end

  def trials
    [record("unicorn x2", 1, workers: 2, threads: 1, server: 3.0, waiting: 0.0, rps: 19.6),
     record("unicorn x2", 16, workers: 2, threads: 1, server: 4.0, waiting: 13.6, rps: 39.2),
     record("puma x2:5", 1, workers: 2, threads: 5, server: 3.0, waiting: 0.0, rps: 19.6, busy: 1.0),
     record("puma x2:5", 16, workers: 2, threads: 5, server: 190.0, waiting: 4.0, rps: 180.0, busy: 10.0)]
  end

  def render(why: false)
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: trials, path: "/runs/a"), io: io, why: why).render
    io.string
  end

  def test_one_grid_of_labels_per_endpoint_with_a_legend_of_the_labels_shown
    out = render
    grid = out[/^What limited each cell.*?(?=^\S*\? =|^Latency is)/m]
    refute_nil grid, out
    assert_match(%r{the reasons: rackbench report /runs/a --why\):$}, grid)
    rows = grid.lines.map(&:rstrip)
    assert_includes rows, "/x          c=1    c=16"
    assert_includes rows, "unicorn x2  below  workers busy"
    assert_includes rows, "puma x2:5   below  CPU"
    legend = rows.grep(/\A  \S/).map { |l| l.split(/\s{2,}/).reject(&:empty?).first }
    assert_equal ["CPU", "workers busy", "below"], legend, "only the labels shown, in the legend's order"
    assert_match(/^  CPU           CPU-bound: the server used the CPU left to it$/, grid)
    refute_match(/waiting on average/, out, "no reason without --why")
    refute_match(/GVL/, grid)
  end

  def test_why_prints_each_cells_reason_after_the_grid
    out = render(why: true)
    assert_match(/the reasons: below\):$/, out)
    why = out[/^Why \(rules: Stats::Verdict\):\n(.*?)(?=^\S)/m, 1]
    refute_nil why, out
    assert_equal 4, why.lines.size, why
    assert_match(%r{^  /x c=16 unicorn x2: workers busy: 13.6 waiting on average, accept queue mean 13.6}, why)
    assert_match(%r{^  /x c=16 puma x2:5: CPU: the server used 190% of the}, why)
    assert_operator out.index("What limited each cell"), :<, out.index("Why (rules")
  end

  def test_report_why_on_the_command_line
    dir = F.write(File.join(tmpdir, "run"), trials: trials)
    status, plain, = run_cli("report", dir)
    assert_equal 0, status
    refute_match(/^Why /, plain)
    assert_match(/rackbench report #{Regexp.escape(dir)} --why\):$/, plain)
    status, why, = run_cli("report", dir, "--why")
    assert_equal 0, status
    assert_match(%r{^  /x c=1 unicorn x2: below: 1 request\(s\) in flight on one connection, one at a time \(c = 1\)}, why)
    status, out, err = run_cli("report", dir, "--why", "--format", "html")
    assert_equal [2, ""], [status, out]
    assert_equal "Error: --why applies to the terminal table; --format html carries the reasons already\n", err
  end

  def test_a_label_the_legend_does_not_know_stands_as_it_is
    assert_equal "below", Rackbench::Report::VerdictGrid.short("below capacity")
    assert_equal "fibers busy", Rackbench::Report::VerdictGrid.short("fibers busy")
  end
end
