# frozen_string_literal: true

require "test_helper"
require "json"
require_relative "headless_chromium"

# rackbench capacity ends by writing report.html into its run directory and
# naming it on stderr; the page charts the levels the search measured.
class CapacityReportTest < Minitest::Test
  def test_capacity_writes_its_report_and_names_it
    dir = File.join(tmpdir, "cap")
    status, out, err = run_cli("capacity", "-s", "unicorn x2", "-e", "/pause/0.02", "--loop", "closed", "-d", "0.5",
                               "--warmup", "0.5", "--max-levels", "3", "-q", "-o", dir)
    assert_equal 0, status, err
    page = File.join(dir, "report.html")
    assert_includes err.lines.map(&:chomp), "Report: #{page}"
    assert_match(/closed loop: sustains/, out)
    html = File.read(page)
    assert_includes html, '<section id="capacity-0"><h2>Capacity <code>/pause/0.02</code></h2>'
    assert_includes html, "<li><b>unicorn x2</b> sustains <b>"
    levels = File.readlines(File.join(dir, "capacity.jsonl")).map { |l| JSON.parse(l) }.count { |r| r["type"] == "level" }
    data = JSON.parse(html[%r{<script type="application/json" id="rackbench-data">(.*?)</script>}m, 1])
    assert_equal ["capacity-0-closed"], data["charts"].map { |c| c["id"] }
    assert_equal levels, data["charts"][0]["datasets"][0]["points"].size, "a point per measured level"

    binary = Rackbench::HeadlessChromium.binary
    require_tool!("chromium", !binary.nil?) # skipped without it, failed in CI: never a silent pass
    result = Rackbench::HeadlessChromium.new(binary, tmpdir).dump_dom(page)
    assert_empty result.console
    assert_match(/data-report="ready"/, result.stdout[/<body[^>]*>/].to_s)
    assert_includes result.stdout, %(<figure class="chart" data-chart="capacity-0-closed" data-points="#{levels}" data-slo="500">)
  end
end
