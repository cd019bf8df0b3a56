# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/report/html"
require "rackbench/report/formats"
require "rackbench/store/run_dir"
require_relative "run_fixture"

# The Capacity section of the HTML report, from a `rackbench capacity` run
# directory (capacity.jsonl joined with trials.jsonl): the curves' data, the
# knee sentences, the SLO line, and what a capacity run leaves out.
class ReportHtmlCapacityTest < Minitest::Test
  F = Rackbench::RunFixture
  EVIL = "<script>alert(1)</script>"

  def render(dir)
    store = Rackbench::Store::RunDir.open(dir)
    Rackbench::Report::Html.new(Rackbench::Report::Dataset.from_store(store), capacity: store.capacity).render
  end

  def payload(html)
    JSON.parse(html[%r{<script type="application/json" id="rackbench-data">(.*?)</script>}m, 1])
  end

  def chart(html, id)
    payload(html)["charts"].find { |c| c["id"] == id } or flunk "no chart #{id}"
  end

  def test_a_section_per_endpoint_with_a_chart_per_loop_and_the_knee_sentences
    html = render(F.capacity_run(File.join(tmpdir, "run")))
    assert_includes html, '<section id="capacity-0"><h2>Capacity <code>/pause/0.05</code></h2>'
    assert_equal %w[capacity-0-open capacity-0-closed], payload(html)["charts"].map { |c| c["id"] }
    assert_includes html, '<figure class="chart" data-chart="capacity-0-open">'
    assert_includes html, '<figure class="chart" data-chart="capacity-0-closed">'
    # The fixture's open-loop trials at 300 req/s ran 1 s at 0.13 s a request: not valid, so no capacity (issue 46, item 9.2).
    assert_includes html, "<li><b>puma x2:3</b> not a capacity: 300 req/s met p99 500 ms (300 req/s, p99 470 ms) but is not valid: " \
                          "trial too short for its latency (1 s run, 0.13 s per request): -d 2 or longer (10x the time per request); " \
                          "at 350 req/s: p99 800 ms over 500 ms <span class=\"muted\">[4 levels]</span></li>"
    assert_includes html, "<li><b>unicorn x2</b> sustains <b>6 connections</b> within p99 500 ms (60.0 req/s, p99 450 ms); " \
                          "at 8 connections: p99 700 ms over 500 ms <span class=\"muted\">[4 levels]</span></li>"
    assert_includes html, "SLO: p99 ≤ 500 ms, errors ≤ 0.1% of responses."
    assert_includes html, "capacity search · 2 setups · 1 endpoint · SLO p99 ≤ 500 ms"
  end

  def test_points_are_the_levels_joined_with_their_trials_sorted_by_level
    html = render(F.capacity_run(File.join(tmpdir, "run")))
    open = chart(html, "capacity-0-open")
    assert_equal [true, "open", "ms", "offered rate (req/s)"], open.values_at("xy", "loop", "unit", "x_title")
    assert_equal({ "y" => 500.0, "label" => "SLO p99 500 ms" }, open["slo"], "the SLO line")
    puma, unicorn = open["datasets"]
    assert_equal ["puma x2:3", "unicorn x2"], [puma["label"], unicorn["label"]]
    assert_equal [200.0, 300.0, 350.0, 400.0], puma["points"].map { |p| p["x"] }
    assert_equal [50.0, 470.0, 800.0, 2000.0], puma["points"].map { |p| p["y"] }
    assert_equal [true, true, false, false], puma["points"].map { |p| p["pass"] }
    remeasured = puma["points"][1]
    assert_equal [3, 450.0, 520.0, 300.0], remeasured.values_at("n", "lo", "hi", "rps")
    assert_equal [false, true, true], remeasured["trials"].map { |t| t["pass"] }, "each trial judged by the recorded SLO"
    assert_equal "p99 520 ms over 500 ms", remeasured["trials"][0]["reason"]
    assert_nil puma["points"][0]["trials"]
    assert open["log"], "50 ms to 2 s spans more than 30x"
    assert_operator open["log_min"], :<=, 50.0
    refute open["x_log"]

    closed = chart(html, "capacity-0-closed")
    assert_equal "concurrency (open connections)", closed["x_title"]
    assert_equal [6.0, 12.0, 18.0, 24.0], closed["datasets"][0]["points"].map { |p| p["x"] }
    assert_equal [60.0, 120.0, 180.0, 240.0], closed["datasets"][0]["points"].map { |p| p["rps"] }
    assert_equal 500.0, closed.dig("slo", "y")
    assert_operator closed["y_max"], :>=, 900.0
  end

  def test_a_wide_closed_loop_search_gets_log_axes_with_ticks_at_its_levels
    levels = { "puma x2:3" => { "closed" => [[1, 5.0, true], [2, 8.0, true], [4, 20.0, true], [8, 60.0, true],
                                             [16, 130.0, true], [32, 260.0, true], [64, 700.0, false]] } }
    closed = chart(render(F.capacity_run(File.join(tmpdir, "run"), levels: levels)), "capacity-0-closed")
    assert closed["x_log"]
    assert_equal [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0], closed["x_ticks"]
    assert_operator closed["x_min"], :<, 1.0
    assert_operator closed["x_max"], :>, 64.0
    assert closed["log"]
    assert_equal 1.0, closed["log_min"]
  end

  # A capacity run holds closed- and open-loop trials of the same setups at
  # levels the search chose: the ordinary sections would mix them on one axis.
  def test_a_capacity_run_shows_only_capacity_warnings_method_environment_and_boots
    html = render(F.capacity_run(File.join(tmpdir, "run")))
    ids = html.scan(/<section id="([^"]+)"/).flatten
    assert_equal %w[answer capacity-0 warnings method environment setups], ids
    refute_includes html, "At c ="
    refute_includes html, 'class="numbers"'
    refute(payload(html)["charts"].any? { |c| c["id"] =~ /\A(rps|latency|bars|memory|cpu)/ })
    assert_includes html, "<dt>Search</dt>"
    assert_includes html, "<dt>Load engine</dt><dd>wrk (closed loop); wrk-open (open loop)</dd>"
    refute_includes html, "Cells ran", "every level runs once: no repetitions note"
  end

  def test_an_ordinary_run_has_no_capacity_section
    html = render(F.full_run(File.join(tmpdir, "run")))
    refute_match(/id="capacity/, html)
    refute(payload(html)["charts"].any? { |c| c["id"].start_with?("capacity") })
  end

  def test_write_and_the_report_command_read_capacity_jsonl_from_the_run_directory
    dir = F.capacity_run(File.join(tmpdir, "run"))
    store = Rackbench::Store::RunDir.open(dir)
    assert_includes File.read(Rackbench::Report::Formats.save_page(store)), 'data-chart="capacity-0-open"'
    html = Rackbench::Report::Html.new(Rackbench::Report::Dataset.from_store(store)).render
    assert_includes html, 'data-chart="capacity-0-closed"'
  end

  def test_an_unfinished_search_and_an_empty_one
    html = render(F.capacity_run(File.join(tmpdir, "run"), knees: false))
    assert_includes html, "<li><b>puma x2:3</b>: the search did not finish <span class=\"muted\">[4 levels measured]</span></li>"
    assert_equal 500.0, chart(html, "capacity-0-open").dig("slo", "y"), "the SLO from meta.json without a knee"

    dir = F.capacity_run(File.join(tmpdir, "empty"))
    File.delete(File.join(dir, "capacity.jsonl"))
    html = render(dir)
    assert_includes html, "No capacity level is recorded in this run directory"
    assert_empty payload(html)["charts"]
  end

  def test_outside_text_is_escaped_in_the_section_and_the_data
    levels = { EVIL => F::CAPACITY_LEVELS["puma x2:3"] }
    dir = F.capacity_run(File.join(tmpdir, "run"), levels: levels, endpoint: "/x?a=<!--", reason_suffix: " </script><b>x</b>")
    html = render(dir)
    refute_includes html, EVIL
    refute_includes html, "<b>x</b>"
    refute_includes html, "<!--"
    assert_includes html, "<li><b>&lt;script&gt;alert(1)&lt;/script&gt;</b> sustains"
    assert_includes html, "over 500 ms &lt;/script&gt;&lt;b&gt;x&lt;/b&gt; <span"
    assert_includes html, "<h2>Capacity <code>/x?a=&lt;!--</code></h2>"
    open = chart(html, "capacity-0-open")
    assert_equal EVIL, open["datasets"][0]["label"]
    assert_equal "p99 800 ms over 500 ms </script><b>x</b>", open["datasets"][0]["points"][2]["reason"]
    assert_equal 3, html.scan(/<script\b/).size
  end
end
