# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/report/html"
require "rackbench/report/formats"
require "rackbench/store/run_dir"
require_relative "run_fixture"

# The HTML as text: self-contained, escaped, and carrying the data report.js
# draws. test/integration/report/html_browser_test.rb checks it in Chromium.
class ReportHtmlTest < Minitest::Test
  F = Rackbench::RunFixture
  EVIL = "<script>alert(1)</script>"

  def render(dir)
    Rackbench::Report::Html.new(Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(dir))).render
  end

  def payload(html)
    JSON.parse(html[%r{<script type="application/json" id="rackbench-data">(.*?)</script>}m, 1])
  end

  def test_write_puts_report_html_in_the_run_directory
    dir = F.full_run(File.join(tmpdir, "run"))
    path = Rackbench::Report::Formats.save_page(Rackbench::Store::RunDir.open(dir))
    assert_equal File.join(dir, "report.html"), path
    assert_match(/\A<!DOCTYPE html>/, File.read(path))
  end

  def test_self_contained_with_a_csp_that_allows_only_its_own_scripts
    html = render(F.full_run(File.join(tmpdir, "run")))
    refute_match(/\s(src|href)="(?!#)/, html, "nothing is loaded from elsewhere")
    assert_equal 3, html.scan(/<script\b/).size
    csp = html[/Content-Security-Policy" content="([^"]+)"/, 1]
    assert_includes csp, "default-src &#39;none&#39;"
    scripts = html.scan(%r{<script>(.*?)</script>}m).flatten
    assert_equal 2, scripts.size
    scripts.each { |s| assert_includes csp, Rackbench::Report::Html::Escape.csp_hash(s).gsub("'", "&#39;") }
    assert_includes scripts.first, "Chart.js v4"
  end

  def test_charts_sections_and_values
    html = render(F.full_run(File.join(tmpdir, "run")))
    charts = payload(html)["charts"]
    assert_equal %w[rps-0 latency-0 rps-1 latency-1 bars-by-endpoint bars-by-setup memory cpu], charts.map { |c| c["id"] }
    rps = charts.first["datasets"].first
    assert_equal "puma x2:3", rps["label"]
    assert_equal [5000.0, 10_000.0], rps["points"].map { |p| p["y"] }
    assert_in_delta 10_000 + 496.83, rps["points"][1]["hi"], 0.01
    assert_equal %w[/hello /pause/0.05], charts.find { |c| c["id"] == "bars-by-endpoint" }["labels"]
    assert charts.find { |c| c["id"] == "bars-by-endpoint" }["log"], "5000 vs 60 req/s needs a log axis"
    charts.each { |c| assert_includes html, %(data-chart="#{c['id']}") }
    assert_includes html, "At c = 8: req/s"
    assert_includes html, "Memory and CPU"
    assert_includes html, "thin did not answer within 60 s"
    assert_includes html, "Student&#39;s t-interval (95%)"
    assert_includes html, "closed loop (latency measured from each request&#39;s send"
    assert_includes html, "<b>10000</b> req/s <span class=\"ci\">[9503–10497]</span>"
  end

  def test_memory_and_cpu_sections_only_when_sampled
    html = render(F.full_run(File.join(tmpdir, "run"), memory: false))
    refute_includes html, "Memory and CPU"
    refute(payload(html)["charts"].any? { |c| %w[memory cpu].include?(c["id"]) })
  end

  def test_trial_notes_and_error_cells_are_warnings
    trials = F.repetitions([10, 11], setup: "thin", endpoint: "/x", concurrency: 1, errors: 2)
    trials.each { |t| t["notes"] = ["the server closes each connection (no keep-alive)"] }
    html = render(F.write(File.join(tmpdir, "run"), trials: trials))
    assert_includes html, "<li>thin /x: the server closes each connection (no keep-alive)</li>"
    assert_includes html, "<li>thin on /x at c=1: 4 errors in 21 requests</li>"
    assert_includes html, "Cells ran twice"
  end

  def test_outside_text_is_escaped_everywhere
    trials = F.repetitions([10, 11], setup: EVIL, endpoint: "/x?a=<!--", concurrency: 1)
    meta = F::META.merge("hostname" => "</script><b>host</b>", "servers" => { "puma" => "\"><img src=x>" })
    dir = F.write(File.join(tmpdir, "run"), trials: trials, meta: meta,
                                              setups: [F.ok_setup(EVIL).merge("argv" => ["<b>argv</b>"])])
    html = render(dir)
    refute_includes html, EVIL
    refute_includes html, "<b>host</b>"
    refute_includes html, "<img src=x>"
    refute_includes html, "<!--"
    assert_includes html, "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert_includes html, '\u003cscript\u003ealert(1)\u003c/script\u003e'
    assert_equal EVIL, payload(html)["charts"].first["datasets"].first["label"]
  end
end
