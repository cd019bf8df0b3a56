# frozen_string_literal: true

require "test_helper"
require "json"
require "csv"

# From `rackbench run` (fake engine against --url: no process is spawned) to
# every report format and compare, through the command line only.
class ReportFromRunTest < Minitest::Test
  def run_once(name)
    dir = File.join(tmpdir, name)
    status, _, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/hello",
                             "-e", "/x", "-c", "1,4", "-d", "1", "--warmup", "0", "-r", "2", "-q", "-o", dir)
    assert_equal 0, status, err
    dir
  end

  def test_every_format_renders_a_stored_run
    dir = run_once("run")
    trials = File.readlines(File.join(dir, "trials.jsonl")).size
    _, json, = run_cli("report", dir, "--format", "json")
    doc = JSON.parse(json)
    assert_equal [trials, 4], [doc["trials"].size, doc["cells"].size]
    assert(doc["cells"].all? { |c| c["repetitions"] == 2 && c.dig("metrics", "rps", "ci95") })
    _, csv, = run_cli("report", dir, "--format", "csv")
    assert_equal trials, CSV.parse(csv, headers: true).size
    _, md, = run_cli("report", dir, "--format", "md")
    assert_includes md, "| /hello | c=1 | c=4 |"
    html_file = File.join(tmpdir, "report.html")
    status, = run_cli("report", dir, "--format", "html", "-o", html_file)
    assert_equal 0, status
    html = File.read(html_file)
    %w[rps-0 latency-0 rps-1 latency-1 bars-by-endpoint bars-by-setup].each { |id| assert_includes html, %(data-chart="#{id}") }
  end

  def test_compare_two_stored_runs
    a = run_once("a")
    b = run_once("b")
    status, out, err = run_cli("compare", a, b)
    assert_equal 0, status, err
    assert_match(/^req\/s in 4 cell\(s\) compared: /, out.lines.last)
    assert_match(/Welch's t on the log values/, out)
  end
end
