# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "rackbench/report/html"
require "rackbench/report/formats"
require "rackbench/store/run_dir"
require_relative "headless_chromium"
require_relative "../../unit/report/run_fixture"
require_relative "../../unit/report/profile_stacks_fixture"

# The HTML report as a person sees it: opened in headless Chromium from a file
# (offline, CSP forbids any network), it must draw every chart with data and
# log nothing to the console. report.js marks <body data-report="ready"> and
# each chart's <figure data-points="N">; --dump-dom shows those marks, and
# --enable-logging=stderr shows every console message. Screenshots (an
# ordinary run, a capacity run) are kept in tmp/artifacts/ for people to look at.
class HtmlBrowserTest < Minitest::Test
  ARTIFACTS = File.expand_path("../../../tmp/artifacts", __dir__)
  F = Rackbench::RunFixture

  def setup
    @binary = Rackbench::HeadlessChromium.binary
    require_tool!("chromium", !@binary.nil?)
  end

  def browser
    Rackbench::HeadlessChromium.new(@binary, tmpdir)
  end

  def report(dir)
    Rackbench::Report::Formats.save_page(Rackbench::Store::RunDir.open(dir))
  end

  def test_every_chart_is_drawn_with_data_and_the_console_stays_quiet
    page = report(F.full_run(File.join(tmpdir, "run")))
    result = browser.dump_dom(page)
    body = result.stdout[/<body[^>]*>/]
    refute_nil body, "Chromium printed no DOM; its log:\n#{result.log[-2000..]}"
    assert_empty result.console, "console messages"
    refute_match(/data-errors/, body, result.stdout[/data-error-messages="[^"]*"/])
    assert_match(/data-report="ready"/, body)
    assert_match(/data-charts="8"/, body)
    figures = result.stdout.scan(/<figure class="chart" data-chart="([^"]+)"(?: data-points="(\d+)")?/)
    assert_equal %w[bars-by-endpoint bars-by-setup rps-0 latency-0 rps-1 latency-1 memory cpu], figures.map(&:first)
    points = figures.to_h.transform_values(&:to_i)
    assert_equal({ "bars-by-endpoint" => 4, "bars-by-setup" => 4, "rps-0" => 4, "latency-0" => 8, "rps-1" => 4,
                   "latency-1" => 8, "memory" => 4, "cpu" => 8 }, points)
  end

  def test_a_real_shaped_run_screenshot_is_kept_for_people
    page = report(F.full_run(File.join(tmpdir, "run")))
    FileUtils.mkdir_p(ARTIFACTS)
    png = File.join(ARTIFACTS, "report.png")
    File.delete(png) if File.exist?(png)
    result = browser.screenshot(page, png)
    assert File.size?(png), "no screenshot; Chromium's log:\n#{result.log[-2000..]}"
    assert_equal "\x89PNG".b, File.binread(png, 4)
    assert_empty result.console
  end

  # run --profile: the differential flame graph is inline SVG; the page is
  # still ready, quiet, and its hostile frame name is text.
  def test_a_profiled_run_s_flame_graph_is_drawn_and_the_console_stays_quiet
    page = report(Rackbench::ProfileStacksFixture.write_run(File.join(tmpdir, "run")))
    result = browser.dump_dom(page)
    body = result.stdout[/<body[^>]*>/]
    refute_nil body, "Chromium printed no DOM; its log:\n#{result.log[-2000..]}"
    assert_empty result.console, "console messages"
    assert_match(/data-report="ready"/, body)
    assert_equal %w[same same grew shrank], result.stdout.scan(/<g class="(\w+)"><title>/).flatten
    refute_match(/<script>alert/, result.stdout)
    FileUtils.mkdir_p(ARTIFACTS)
    png = File.join(ARTIFACTS, "flame-report.png")
    File.delete(png) if File.exist?(png)
    shot = browser.screenshot(page, png, size: "1280,1100")
    assert File.size?(png), "no screenshot; Chromium's log:\n#{shot.log[-2000..]}"
  end

  # A capacity run: only its p99-vs-level curves, each with every measured
  # level as a point and the SLO's objective line inside the plot.
  def test_a_capacity_report_draws_its_curves_with_the_slo_line
    page = report(F.capacity_run(File.join(tmpdir, "run")))
    result = browser.dump_dom(page)
    body = result.stdout[/<body[^>]*>/]
    refute_nil body, "Chromium printed no DOM; its log:\n#{result.log[-2000..]}"
    assert_empty result.console, "console messages"
    refute_match(/data-errors/, body, result.stdout[/data-error-messages="[^"]*"/])
    assert_match(/data-report="ready"/, body)
    assert_match(/data-charts="2"/, body)
    figures = result.stdout.scan(/<figure class="chart" data-chart="([^"]+)" data-points="(\d+)"(?: data-slo="([^"]+)")?/)
    assert_equal [["capacity-0-open", "8", "500"], ["capacity-0-closed", "8", "500"]], figures

    FileUtils.mkdir_p(ARTIFACTS)
    png = File.join(ARTIFACTS, "capacity-report.png")
    File.delete(png) if File.exist?(png)
    shot = browser.screenshot(page, png, size: "1280,1100")
    assert File.size?(png), "no screenshot; Chromium's log:\n#{shot.log[-2000..]}"
    assert_empty shot.console
  end

  def test_a_script_in_a_setup_label_is_shown_as_text_not_run
    evil = "<script>alert(1)</script>"
    marker = %(<img src=x onerror="document.title='pwned'">)
    trials = F.repetitions([100, 110], setup: evil, endpoint: "/x", concurrency: 1) +
             F.repetitions([90, 95], setup: marker, endpoint: "/x", concurrency: 1)
    dir = F.write(File.join(tmpdir, "run"), trials: trials, setups: [F.ok_setup(evil)])
    result = browser.dump_dom(report(dir))
    dom = result.stdout
    assert_match(/data-report="ready"/, dom[/<body[^>]*>/].to_s)
    assert_empty result.console, "an alert or a CSP violation would show here"
    assert_equal 3, dom.scan(/<script\b/).size, "only the page's own scripts exist in the DOM"
    assert_includes dom, "<th scope=\"row\">&lt;script&gt;alert(1)&lt;/script&gt;</th>"
    assert_includes dom, "&lt;img src=x onerror="
    refute_includes dom, "<img"
    refute_match(/pwned/, dom[%r{<title>.*?</title>}m])
  end
end
