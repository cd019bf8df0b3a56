# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/report/html"
require "rackbench/report/json_doc"
require "rackbench/report/table"
require "rackbench/report/capacity_text"
require "rackbench/search/client_bound"

# The verdicts where people look: terminal notes, HTML (verdict table, queue
# and balance charts), JSON cells, and the capacity knee's sentence.
class VerdictReportTest < Minitest::Test
  def record(setup, c, waiting:, server:, shares:)
    { "key" => "#{setup}|/pause/0.05|#{c}|1", "setup" => setup, "server" => setup.split.first, "workers" => 2, "threads" => 1,
      "endpoint" => "/pause/0.05", "concurrency" => c, "repetition" => 1, "loop" => "closed", "rps" => c == 1 ? 19.6 : 39.2,
      "requests" => 100, "duration_s" => 2.0, "latency_ms" => { "mean" => c == 1 ? 51.0 : 380.0, "p99" => 400.0 },
      "error_total" => 0, "error_rate" => 0.0, "processes" => { "worker_restarts" => 0 },
      "cpu" => { "server_pct" => server, "client_pct" => 1.0, "cores" => 2, "client_machine_share" => 0.005 },
      "machine" => { "cpu_pct" => server + 5 },
      "queues" => { "accept" => { "mean" => waiting, "p95" => waiting.ceil, "max" => waiting.ceil, "limit" => 1024 },
                    "server" => { "unknown" => "unicorn has no stats interface rackbench reads" }, "waiting_mean" => waiting },
      "balance" => { "workers" => shares.each_with_index.map { |s, i| { "pid" => 100 + i, "cpu_pct" => 1.0, "requests_share" => s } },
                     "busiest_cpu_pct" => 1.0 } }
  end

  def trials
    [record("unicorn x2", 1, waiting: 0.0, server: 2.0, shares: [0.5, 0.5]),
     record("unicorn x2", 16, waiting: 13.6, server: 3.0, shares: [0.75, 0.25])]
  end

  def dataset
    Rackbench::Report::Dataset.new(meta: { "cores" => 2 }, trials: trials)
  end

  def test_terminal_gives_each_cell_its_label_and_with_why_its_reason
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: trials), io: io).render
    assert_match(/^unicorn x2   below  workers busy$/, io.string)
    refute_match(/13.6 waiting on average/, io.string, "the reasons only with --why")
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: trials), io: io, why: true).render
    assert_match(%r{/pause/0.05 c=1 unicorn x2: below: 1 request\(s\) in flight}, io.string)
    assert_match(%r{/pause/0.05 c=16 unicorn x2: workers busy: 13.6 waiting on average}, io.string)
  end

  def test_html_shows_verdicts_queue_and_balance_charts
    html = Rackbench::Report::Html.new(dataset).render
    assert_includes html, "What limited each cell"
    assert_includes html, "<b class=\"kind-busy\">workers busy</b>"
    charts = JSON.parse(html[%r{<script type="application/json" id="rackbench-data">(.*?)</script>}m, 1])["charts"]
    queue = charts.find { |c| c["id"] == "queue-0" }
    assert_equal [0.0, 13.6], queue["datasets"].first["points"].map { |p| p["y"] }
    balance = charts.find { |c| c["id"] == "balance-0" }
    assert_equal [[75.0], [25.0]], balance["datasets"].map { |d| d["points"].map { |p| p["y"] } }
    assert balance["stacked"]
  end

  def test_json_cells_carry_the_verdict
    cells = JSON.parse(Rackbench::Report::JsonDoc.new(dataset).render)["cells"]
    busy = cells.find { |c| c["concurrency"] == 16 }["verdict"]
    assert_equal "busy", busy["kind"]
    assert_equal 13.6, busy.dig("evidence", "waiting_mean")
    assert busy.dig("littles_law", "holds")
  end

  def test_capacity_says_what_stopped_the_knee
    knee = { "type" => "knee", "setup" => "unicorn x2", "endpoint" => "/pause/0.05", "slo" => { "p99_ms" => 200 },
             "closed" => { "loop" => "closed", "pass" => 2, "fail" => 16, "fail_reason" => "p99 412 ms > 200 ms",
                           "pass_record" => { "rps" => 39.0 }, "fail_record" => { "key" => "unicorn x2|/pause/0.05|16|1" },
                           "levels_measured" => 4 } }
    io = StringIO.new
    Rackbench::Report::CapacityText.new([knee], io: io, trials: trials).render
    assert_match(/what stopped it at 16 connections: workers busy: 13.6 waiting/, io.string)
  end

  # The blog's open loop on a crowded machine (issue 34): 147 req/s met the
  # SLO, 294 req/s the load generator could not hold even with fewer connections.
  def test_capacity_says_when_the_load_generator_bounded_the_search
    note = Rackbench::Search::ClientBound.note(293.7)
    knee = { "type" => "knee", "setup" => "puma x2:8", "endpoint" => "/posts/1", "slo" => { "p99_ms" => 300 },
             "open" => { "loop" => "open", "pass" => 146.9, "fail" => nil, "bound" => 293.7, "bound_reason" => note,
                         "pass_record" => { "rps" => 146.5, "latency_ms" => { "p99" => 99.0 } }, "levels_measured" => 2 } }
    levels = [{ "type" => "level", "setup" => "puma x2:8", "endpoint" => "/posts/1", "kind" => "open", "level" => 146.9, "pass" => true },
              { "type" => "level", "setup" => "puma x2:8", "endpoint" => "/posts/1", "kind" => "open", "level" => 293.7,
                "pass" => false, "client" => true }]
    io = StringIO.new
    Rackbench::Report::CapacityText.new([knee, *levels], io: io, trials: []).render
    assert_match(/sustains 146.9 req\/s within p99 300 ms .*; the load generator could not hold 294 req\/s on this machine/, io.string)
    refute_match(/upper limit/, io.string)
    assert_match(%r{open curve: 146.9 req/s ok, 293.7 req/s client behind$}, io.string)
  end
end
