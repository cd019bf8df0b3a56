# frozen_string_literal: true

require "test_helper"
require "fileutils"
require_relative "headless_chromium"

# A real run's report.html, opened in headless Chromium as a person opens
# it: the answer comes first (the first section of the page, before the
# overview, the endpoints and the warnings), names a leader, and a cell
# too short for its latency is greyed and left out of it. /pause/0.5 at
# c=2 over -d 1 is such a cell on every setup (0.5 s or more per request:
# a trial needs 10 times that); /hello at c=2 is not.
class AnswerFirstBrowserTest < Minitest::Test
  ARTIFACTS = File.expand_path("../../../tmp/artifacts", __dir__)

  def test_a_real_runs_report_leads_with_the_answer
    require_tool!("wrk")
    binary = Rackbench::HeadlessChromium.binary
    require_tool!("chromium", !binary.nil?)
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-s", "puma x1:2", "-s", "unicorn x1", "-e", "/hello", "-e", "/pause/0.5", "-c", "2",
                               "-d", "1", "--warmup", "0", "--cooldown", "0", "-q", "-o", dir)
    assert_equal 0, status, err
    assert_match(%r{^  /pause/0\.5 c=2: no valid cell \((puma x1:2|unicorn x1) \?, (puma x1:2|unicorn x1) \?; }, out)

    browser = Rackbench::HeadlessChromium.new(binary, tmpdir)
    result = browser.dump_dom(File.join(dir, "report.html"))
    dom = result.stdout
    assert_match(/<body[^>]*data-report="ready"/, dom, result.log[-2000..])
    assert_empty result.console
    ids = dom.scan(/<section id="([^"]+)"/).flatten
    assert_equal "answer", ids.first, "the answer is the page's first section"
    assert_operator ids.index("answer"), :<, ids.index("overview")
    assert_operator ids.index("overview"), :<, ids.index("warnings")
    answer = dom[%r{<section id="answer">.*?</section>}m]
    assert_match(%r{<li><code>/hello</code> <span class="level">c=2</span> <b>(puma x1:2|unicorn x1)</b> [\d.k]+ req/s}, answer)
    assert_match(%r{<li><code>/pause/0.5</code> <span class="level">c=2</span> <span class="muted">no valid cell: }, answer)
    refute_match(%r{<b>[^<]*</b> [\d.]+ req/s[^<]*(<span[^>]*>[^<]*</span>)*, [^<]*: one round}m, answer[%r{<li><code>/pause.*?</li>}m])
    numbers = dom.scan(%r{<table class="numbers">.*?</table>}m)
    assert_equal [0, 2], numbers.map { |t| t.scan('<td class="invalid">').size }, "the two /pause/0.5 cells are greyed"
    assert_match(%r{<a href="#warnings">2 cells not valid \(\?\)</a>}, dom)
    assert_match(%r{<li class="invalid"><b>/pause/0.5 c=2 (puma x1:2|unicorn x1)</b>: not valid: trial too short for its latency .*: -d \d+ or longer}, dom)

    FileUtils.mkdir_p(ARTIFACTS)
    png = File.join(ARTIFACTS, "answer-first.png")
    shot = browser.screenshot(File.join(dir, "report.html"), png, size: "1280,900")
    assert File.size?(png), "no screenshot; Chromium's log:\n#{shot.log[-2000..]}"
  end
end
