# frozen_string_literal: true

require "test_helper"
require "json"
require "stringio"
require "rackbench/cli"
require_relative "run_fixture"

# Issue 35: a run of 100,000 cells renders in under a minute and 500 MB
# (bench/huge_report.rb measures it). The JSON and HTML reports stream: they
# reach standard output a cell, trial or section at a time, never as one
# document built in memory (100,000 cells made a JSON String of ~500 MB). A
# run of 2,000 cells here: the output is many small writes, the first long
# before the last cell is rendered.
class ReportStreamingTest < Minitest::Test
  CELLS = 2_000

  # An IO that keeps each write's size (not the text).
  class Writes
    attr_reader :sizes

    def initialize
      @sizes = []
      @text = +""
    end

    def write(*texts)
      texts.each do |t|
        @sizes << t.bytesize
        @text << t
      end
      texts.sum(&:bytesize)
    end

    def string = @text
    def flush = nil
    def inspect = "#<Writes #{@sizes.size} writes>"
  end

  def huge_run
    endpoints = CELLS / 2
    trials = %w[puma\ x2:3 unicorn\ x2].flat_map do |setup|
      Array.new(endpoints) do |i|
        Rackbench::RunFixture.trial(setup: setup, endpoint: "/e#{i}", concurrency: 8, repetition: 1, rps: 1000.0 + i % 7,
                                    memory: { "pss_total_mb" => 120.0 }, cpu: { "server_pct" => 70.0 })
      end
    end
    Rackbench::RunFixture.write(File.join(tmpdir, "huge"), trials: trials, setups: [Rackbench::RunFixture.ok_setup("puma x2:3")])
  end

  def render(dir, format)
    io = Writes.new
    err = StringIO.new
    status = Rackbench::CLI.call(["report", dir, "--format", format], out: io, err: err, env: ENV.to_h)
    assert_equal 0, status, err.string
    io
  end

  def test_json_streams_a_cell_at_a_time
    io = render(huge_run, "json")
    doc = JSON.parse(io.string)
    assert_equal [CELLS, CELLS], [doc["cells"].size, doc["trials"].size]
    assert_operator io.sizes.size, :>, 2 * CELLS, "one write or more per cell and per trial"
    assert_operator io.sizes.max, :<, 64 * 1024, "no write holds the document (#{io.string.bytesize} bytes)"
  end

  def test_html_streams_a_section_at_a_time_and_says_what_it_charts
    io = render(huge_run, "html")
    assert_operator io.sizes.size, :>, CELLS / 2, "one write or more per endpoint's section"
    assert_operator io.sizes.max, :<, 1024 * 1024, "no write holds the page but for the chart library"
    html = io.string
    assert_equal CELLS / 2, html.scan(/<section id="endpoint-\d+">/).size, "every endpoint keeps its tables"
    assert html.include?("Charts show the first 200 of this run&#39;s 1000 endpoints"), "the page says what it charts"
    assert html.include?("<canvas id=\"chart-rps-199\""), "endpoint 200 is charted"
    refute html.include?("<canvas id=\"chart-rps-200\""), "endpoint 201 is not"
    charts = JSON.parse(html[%r{<script type="application/json" id="rackbench-data">(.*?)</script>}m, 1])["charts"]
    assert_equal 200, charts.count { |c| c["id"].start_with?("rps-") }
  end
end
