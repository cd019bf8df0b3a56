# frozen_string_literal: true

require "test_helper"
require "cgi"
require "json"
require "rackbench/stats/verdict"
require_relative "headless_chromium"

# A real run's report.html as a person opens it, where html_browser_test.rb
# opens fixtures: `rackbench run` boots Unicorn with two workers and loads
# /pause/0.01 at c = 1 and 8 (wrk's shortest run, 1 s each: 2 s of load), and
# the page it wrote is opened in headless Chromium. The verdict table is read
# from the DOM after the page's scripts ran (--dump-dom); the queue and
# balance charts from their canvas pixels (canvas_probe.js).
#
# What the measurement must show: at c = 1 nothing waits; at c = 8 two
# workers serve two requests and about six wait in the accept queue, so the
# verdict is "workers busy" and the queue line rises from c = 1 to c = 8; each
# worker serves about half of the requests. 10 ms pauses keep each trial
# over 10 requests' time in the system, so no cell is too short to trust.
class RunReportBrowserTest < Minitest::Test
  RUN = ["run", "-s", "unicorn x2", "-e", "/pause/0.01", "-c", "1,8", "-d", "1", "--warmup", "0", "-q"].freeze

  def setup
    @binary = Rackbench::HeadlessChromium.binary
    require_tool!("chromium", !@binary.nil?)
  end

  def test_a_real_runs_verdicts_queue_and_balance_as_drawn
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli(*RUN, "-o", dir)
    assert_equal 0, status, err
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal [1, 8], trials.map { |t| t["concurrency"] }.sort
    browser = Rackbench::HeadlessChromium.new(@binary, tmpdir)
    page = File.join(dir, "report.html")

    assert_verdict_table(browser.dump_dom(page), trials)
    drawn = browser.charts_drawn(page)
    assert_equal [nil, "ready", nil, []], drawn.values_at("error", "report", "errors", "console"), drawn.inspect
    assert_queue_chart(drawn.dig("charts", "queue-0"), trials)
    assert_balance_chart(drawn.dig("charts", "balance-0"), trials.max_by { |t| t["concurrency"] })
  end

  private

  # setups x levels, each cell the verdict of its stored trial (label and
  # reason) as Stats::Verdict gives it.
  def assert_verdict_table(result, trials)
    dom = result.stdout
    assert_empty result.console, "console messages"
    assert_match(/data-report="ready"/, dom[/<body[^>]*>/].to_s)
    table = dom[%r{<table class="verdicts">.*?</table>}m]
    refute_nil table, "the verdict table is in the page"
    assert_equal %w[setup c=1 c=8], table.scan(%r{<th scope="col">([^<]*)</th>}).flatten
    rows = table.scan(%r{<tr><th scope="row">([^<]*)</th>(.*?)</tr>}m)
    assert_equal ["unicorn x2"], rows.map(&:first)
    cells = rows.first.last.scan(%r{<td class="verdict[^"]*"><b class="kind-([\w-]+)">([^<]+)</b><br><span class="why">([^<]*)</span>})
                .map { |texts| texts.map { |t| CGI.unescapeHTML(t) } }
    stored = trials.sort_by { |t| t["concurrency"] }.map { |t| Rackbench::Stats::Verdict.for_cell([t]) }
    assert_equal stored.map { |v| [v.kind, v.label, v.reason] }, cells, "each cell shows its trial's verdict"
    assert_equal %w[busy workers\ busy], cells.last.first(2), "c=8 on 2 workers queues: #{cells.last.last}"
    assert_match(/\A[\d.]+ waiting on average, accept queue mean [\d.]+/, cells.last.last)
  end

  # One line: near 0 waiting at c=1 (left half of the plot), about 6 at c=8
  # (right half), so its pixels sit far higher on the right (y grows downwards).
  def assert_queue_chart(chart, trials)
    refute_nil chart, "the queue chart is on the page"
    waiting = trials.sort_by { |t| t["concurrency"] }.map { |t| t.dig("queues", "waiting_mean") }
    assert_equal "2", chart["points"], chart.inspect
    assert_operator waiting.last, :>=, 3, "at c=8 requests wait for the 2 workers: #{waiting}"
    line = chart.dig("plot", "series", "unicorn x2")
    assert_operator line["pixels"], :>, 100, "the line is drawn: #{chart.inspect}"
    rise = line["left_y"] - line["right_y"]
    assert_operator rise, :>, chart.dig("plot", "height") * 0.3, "the line climbs from c=1 to c=8: #{chart.inspect}"
  end

  # One bar, a segment per worker (busiest first) as long as its share of the
  # requests: the two colours' pixels stand in the ratio of the shares.
  def assert_balance_chart(chart, trial)
    refute_nil chart, "the balance chart is on the page"
    shares = trial.dig("balance", "workers").map { |w| w["requests_share"] }.sort.reverse
    assert_equal 2, shares.size, trial["balance"].inspect
    assert_equal "2", chart["points"], chart.inspect
    first, second = chart.dig("plot", "series").values_at("worker 1 (busiest)", "worker 2").map { |s| s["pixels"] }
    assert_operator first, :>, 1000, "the bar is drawn: #{chart.inspect}"
    assert_in_delta shares[1] / shares[0], second.fdiv(first), 0.1, "segments in the ratio of #{shares}: #{chart.inspect}"
  end
end
