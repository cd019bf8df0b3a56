# frozen_string_literal: true

require "test_helper"
require "json"
require "stringio"
require "rackbench/report/table"
require "rackbench/report/markdown"
require "rackbench/report/html"
require "rackbench/report/json_doc"
require "rackbench/report/capacity_text"
require "rackbench/store/run_dir"
require_relative "run_fixture"

# Every format answers first and shows what it cannot trust: "~" on a cell
# measured under foreign load, "?" on a cell not valid (too short for its
# latency: kept out of the answer, its note naming the -d it needs), and
# wrk's latency correction as a note, not an alarm.
class TrustMarksTest < Minitest::Test
  F = Rackbench::RunFixture

  def cell(setup, endpoint, c, rps:, mean:, duration: 10.0, foreign: 2.0)
    F.trial(setup: setup, endpoint: endpoint, concurrency: c, repetition: 1, rps: rps, mean: mean, p99: mean * 1.5)
     .merge("duration_s" => duration, "machine" => { "cpu_pct" => 120.0, "foreign_pct" => foreign })
  end

  # /x c=4: puma leads under foreign load (45% of a core); unicorn x1 ran
  # 2 s at 2 s per request (4 connections / 2 req/s): too short, needs -d 20.
  # /hello c=1: puma's mean shows wrk's latency correction (5000 x 0.69 ms = 3.45 of 1).
  def trials
    [cell("puma x1:2", "/hello", 1, rps: 5000.0, mean: 0.69), cell("unicorn x1", "/hello", 1, rps: 3800.0, mean: 0.26),
     cell("thin", "/hello", 1, rps: 3000.0, mean: 0.33),
     cell("puma x1:2", "/x", 4, rps: 8.0, mean: 500.0, foreign: 45.0), cell("unicorn x1", "/x", 4, rps: 2.0, mean: 752.0, duration: 2.0),
     cell("thin", "/x", 4, rps: 6.0, mean: 667.0)]
  end

  def store
    Rackbench::Store::RunDir.open(F.write(File.join(tmpdir, "run"), trials: trials))
  end

  def dataset = Rackbench::Report::Dataset.from_store(store)

  def test_terminal_marks_the_cells_and_keeps_the_invalid_one_out_of_the_answer
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: trials), io: io).render
    out = io.string
    lines = out.lines.map(&:chomp)
    assert_equal "  /x c=4: puma x1:2 8.0 req/s ~ vs thin 6.0: one round cannot decide (run -r 3 or more, or --decide); " \
                 "left out, not valid: unicorn x1 ?", lines[2]
    assert_equal "  ~ = measured under foreign load: a lead marked ~ may be other processes' doing; quiet the machine " \
                 "and measure again", lines[3]
    rows = lines.select { |l| l.start_with?("unicorn x1", "puma x1:2") && l.include?("ms") }
    assert_match(/ \?\z/, rows.find { |r| r.start_with?("unicorn x1") && r.include?("752") })
    assert_match(/ ~\z/, rows.find { |r| r.start_with?("puma x1:2") && r.include?("500 ms") })
    assert_includes lines, "? = not valid, left out of the answer (1 cell):"
    assert_includes lines, "  too short for their latency: /x c=4 unicorn x1 (-d 20); a trial needs 10x the time per request: " \
                           "run again with -d 20 or longer"
    note = lines.find { |l| l.start_with?("Note (wrk's latency correction, not an error)") }
    assert_match(%r{above c in /hello c=1 puma x1:2 \+245%: wrk adds synthetic samples}, note)
    refute_match(/Little's law does not hold/, out, "the artifact is one grouped note, the prose only with --why")
  end

  def test_an_endpoint_with_no_valid_cell_says_so
    short = [cell("puma x1:2", "/x", 4, rps: 2.0, mean: 1000.0, duration: 2.0), cell("thin", "/x", 4, rps: 1.0, mean: 2000.0, duration: 2.0)]
    io = StringIO.new
    Rackbench::Report::Table.new(Rackbench::Report::Dataset.new(meta: {}, trials: short), io: io).render
    assert_equal "  /x c=4: no valid cell (puma x1:2 ?, thin ?; see the notes under the tables)", io.string.lines[1].chomp
  end

  def test_markdown_answers_first_and_marks_cells
    md = Rackbench::Report::Markdown.new(dataset).render
    assert_operator md.index("**Answer (req/s"), :<, md.index("| /hello |")
    assert_includes md, "- /x c=4: puma x1:2 8.0 req/s \\~ vs thin 6.0: one round cannot decide (run -r 3 or more, or --decide); " \
                        "left out, not valid: unicorn x1 ?"
    assert_includes md, "| unicorn x1 | **2.0** · 752 ms / 1.13 s ? |"
    assert_includes md, "| puma x1:2 | **8.0** · 500 ms / 750 ms \\~ |"
    assert_includes md, "  - **not valid: trial too short for its latency (2 s run, 2 s per request): -d 20 or longer (10x the time per request)**"
    assert_includes md, "  - (a note, not an error) Little's law does not hold: c=1 but req/s × mean latency = 3.45 (+245%)"
    assert_includes md, "  - too short for their latency: /x c=4 unicorn x1 (-d 20)"
    assert_includes md, "- \\~ = measured under foreign load: other processes used more than 10% of a core (1 of 6 trial(s), up to 45%)"
    assert_includes md, "<details><summary>Why: each cell's reasons</summary>"
    assert_match(/^- Note \(wrk's latency correction, not an error\)/, md)
  end

  def test_html_leads_with_the_answer_greys_invalid_cells_and_mutes_the_artifact
    html = Rackbench::Report::Html.new(dataset).render
    ids = html.scan(/<section id="([^"]+)"/).flatten
    assert_equal "answer", ids.first
    answer = html[%r{<section id="answer">.*?</section>}m]
    item = answer[%r{<li><code>/x</code>.*?</li>}m]
    assert_match(%r{<b>puma x1:2</b> 8.0 req/s <span class="mark foreign" title="measured under foreign load[^"]*">~</span>}, item)
    assert_match(%r{<span class="left-out">left out, not valid: unicorn x1 <span class="mark invalid" title="not valid: trial too short}, item)
    refute_match(%r{<b>unicorn x1</b>}, answer, "never crowned")
    assert_match(/~ = measured under foreign load: a lead marked ~/, answer)
    numbers = html[%r{<table class="numbers">(?:(?!</table>).)*752 ms(?:(?!</table>).)*</table>}m]
    assert_match(%r{<td class="invalid"><b>2.0</b> req/s <span class="mark invalid"}, numbers)
    assert_equal 1, html.scan('<td class="invalid">').size, "the one invalid cell, in the numbers table"
    assert_equal 1, html.scan('<td class="verdict invalid">').size, "and in the verdict table"
    assert_match(%r{<header>.*<a href="#warnings">machine not quiet: 1 of 6 trials under foreign load \(~\)</a>}m, html)
    assert_match(%r{<a href="#warnings">1 cell not valid \(\?\)</a>}, html)
    warnings = html[%r{<section id="warnings">.*?</section>}m]
    assert_match(%r{<li class="invalid"><b>/x c=4 unicorn x1</b>: not valid: trial too short for its latency \(2 s run, 2 s per request\): -d 20}, warnings)
    assert_match(%r{<li class="artifact">Note \(wrk&#39;s latency correction, not an error\)}, warnings)
    assert_match(%r{<li class="foreign">~ = measured under foreign load}, warnings)
    verdicts = html[%r{<table class="verdicts">(?:(?!</table>).)*</table>}m]
    assert_match(%r{<span class="artifact">Note: Little&#39;s law does not hold: c=1}, verdicts)
    refute_match(%r{<span class="bad">Little&#39;s law does not hold: c=1 but req/s × mean latency = 3.45}, verdicts)
    chart = JSON.parse(html[%r{<script type="application/json" id="rackbench-data">(.*?)</script>}m, 1])["charts"]
                .find { |c| c["id"] == "rps-1" }
    unicorn = chart["datasets"].find { |d| d["label"] == "unicorn x1" }["points"].first
    assert_match(/\Anot valid: trial too short/, unicorn["invalid"])
    assert chart["datasets"].find { |d| d["label"] == "puma x1:2" }["points"].first["foreign"]
  end

  def test_json_cells_carry_their_validity
    cells = JSON.parse(Rackbench::Report::JsonDoc.new(dataset).render)["cells"]
    short = cells.find { |c| c["setup"] == "unicorn x1" && c["endpoint"] == "/x" }["validity"]
    assert_equal [false, 20, ["short"]], [short["valid"], short["needs_duration_s"], short["problems"].map { |p| p["kind"] }]
    artifact = cells.find { |c| c["setup"] == "puma x1:2" && c["endpoint"] == "/hello" }["validity"]
    assert_equal [true, true], [artifact["valid"], artifact["wrk_latency_correction"]]
  end

  # A capacity run: its answer is each setup's knees in their own units, the
  # SLO, and the marks of the trials at each knee.
  def test_capacity_answers_with_each_knee_in_its_unit_and_marks_it
    dir = F.capacity_run(File.join(tmpdir, "cap"))
    rows = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    rows.each do |t|
      t["machine"] = { "foreign_pct" => 60.0 } if t["key"] == "unicorn x2|/pause/0.05|6|1"
      t["duration_s"] = 0.5 if t["key"] == "puma x2:3|/pause/0.05|18|1" # 18 connections at 180 req/s: 0.1 s each
    end
    File.write(File.join(dir, "trials.jsonl"), rows.map { |t| JSON.generate(t) + "\n" }.join)
    run = Rackbench::Store::RunDir.open(dir)
    html = Rackbench::Report::Html.new(Rackbench::Report::Dataset.from_store(run)).render
    answer = html[%r{<section id="answer">.*?</section>}m]
    assert_includes answer, "<code>/pause/0.05</code> within the SLO p99 ≤ 500 ms, errors ≤ 0.1% of responses:"
    # A knee not valid is no capacity (issue 46, item 9.2): said as such, never in bold.
    assert_match(%r{<li><b>puma x2:3</b>: closed loop not a capacity: c=18 connections met the SLO \(180 req/s, p99 400 ms\) <span class="mark invalid" title="not valid: trial too short[^"]*-d 1 or longer[^"]*">\?</span> but is not valid;}, answer)
    assert_match(%r{open loop not a capacity: r=300 req/s offered met the SLO \(300 req/s, p99 470 ms\) <span class="mark invalid"}, answer)
    assert_match(%r{<li><b>unicorn x2</b>: closed loop <b>c=6 connections</b> \(60.0 req/s, p99 450 ms\) <span class="mark foreign"}, answer)
    assert_operator html.index('<section id="answer">'), :<, html.index('<section id="capacity-0">')
    assert_includes answer, "<p class=\"note\">? puma x2:3 closed loop at c=18 connections: not valid: trial too short for its latency " \
                            "(0.5 s run, 0.1 s per request): -d 1 or longer (10x the time per request)</p>"
    knees = html[%r{<section id="capacity-0">.*?</section>}m]
    assert_match(%r{<li><b>puma x2:3</b> not a capacity: 18 connections met p99 500 ms \(180 req/s, p99 400 ms\) but is not valid: trial too short}, knees)
    refute_match(/sustains <b>18 connections/, knees)
    assert_match(/<p class="note">~ = measured under foreign load: a lead marked ~/, answer)

    io = StringIO.new
    Rackbench::Report::CapacityText.new(run.capacity, io: io, trials: run.trials).render
    assert_match(/^  closed loop: not a capacity: 18 connections met p99 500 ms \(180 req\/s, p99 400 ms\) \? but is not valid; at 24/, io.string)
    refute_match(/sustains 18 connections/, io.string)
    assert_match(/^    \? not valid: trial too short for its latency \(0.5 s run, 0.1 s per request\): -d 1 or longer/, io.string)
    assert_match(/^  closed loop: sustains 6 connections within p99 500 ms \(60.0 req\/s, p99 450 ms\) ~; at 8/, io.string)
    assert_match(/^~ = measured under foreign load/, io.string)
  end
end
