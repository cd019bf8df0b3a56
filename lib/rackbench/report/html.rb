# frozen_string_literal: true

require_relative "dataset"
require_relative "html/escape"
require_relative "html/chart_data"
require_relative "html/sections"
require_relative "html/leaders"
require_relative "../version"
require_relative "../error"

module Rackbench
  module Report
    # The HTML report: one self-contained file that opens offline. Chart.js
    # (vendored by bin/vendor-charts), the page's CSS and script and the data
    # are all inlined; a Content-Security-Policy allows no network at all and
    # only the page's own two scripts (by hash), so nothing from the run
    # directory can run as code. report.js writes data-points="N" on each
    # chart and data-report="ready" on <body> once every chart is drawn.
    class Html
      include Escape

      ASSETS = File.join(__dir__, "html")
      VENDOR = File.join(__dir__, "vendor")
      FILE_NAME = "report.html"

      # Renders the run directory's report into it; returns the file's path.
      # The runner calls this at the end of `rackbench run`.
      def self.write(store)
        store.write_atomically(FILE_NAME, new(Dataset.from_store(store)).render)
      end

      def self.chart_library
        File.read(File.join(VENDOR, "chart.umd.min.js"))
      rescue Errno::ENOENT
        raise Error, "the HTML report's chart library is missing from #{VENDOR}; reinstall rackbench or run bin/vendor-charts"
      end

      def self.chart_version
        File.read(File.join(VENDOR, "chart.js-VERSION")).strip
      rescue Errno::ENOENT
        "4"
      end

      def initialize(dataset)
        @data = dataset
        @charts = ChartData.new(dataset)
        @sections = Sections.new(dataset)
      end

      def render
        library = inline_script(self.class.chart_library)
        script = inline_script(File.read(File.join(ASSETS, "report.js")))
        layout(body, library, script)
      end

      private

      def layout(content, library, script)
        csp = "default-src 'none'; script-src #{csp_hash(library)} #{csp_hash(script)}; style-src 'unsafe-inline'; img-src data:"
        <<~HTML
          <!DOCTYPE html>
          <html lang="en">
          <head>
          <meta charset="utf-8">
          <meta http-equiv="Content-Security-Policy" content="#{h(csp)}">
          <meta name="viewport" content="width=device-width, initial-scale=1">
          <meta name="generator" content="rackbench #{h(VERSION)}, Chart.js #{h(self.class.chart_version)}">
          <title>rackbench report · #{h(title)}</title>
          <style>#{File.read(File.join(ASSETS, 'report.css'))}</style>
          </head>
          <body>
          #{content}
          <script type="application/json" id="rackbench-data">#{json_for_script({ charts: @charts.charts })}</script>
          <script>#{library}</script>
          <script>#{script}</script>
          </body>
          </html>
        HTML
      end

      def title
        @data.path ? File.basename(@data.path.to_s.chomp("/")) : @data.meta["started_at"].to_s
      end

      def body
        empty = @data.trials.empty? ? section("empty", "No trials", "<p>No trials are stored in this run directory yet.</p>") : nil
        [header, empty, overview, *@data.endpoints.each_with_index.map { |e, i| endpoint_section(e, i) },
         resources, section("warnings", "Warnings", @sections.warnings),
         section("method", "Method", @sections.method_list), section("environment", "Environment", @sections.environment),
         section("setups", "Server boots", @sections.setups_table)].compact.join("\n")
      end

      def header
        m = @data.meta
        min, max = @data.repetitions
        facts = @data.trials.empty? ? [] : ["#{@data.setups.size} setups", "#{@data.endpoints.size} endpoints", "c = #{@data.levels.join(', ')}",
                 "#{min == max ? min : "#{min}–#{max}"} repetitions", @data.loops.map { |l| "#{l} loop" }.join(", "),
                 [m.dig("engine", "name"), m.dig("engine", "version")].compact.join(" ")].reject { |f| f.to_s.strip.empty? }
        failed = @data.failed_setups.size
        alert = failed.positive? ? "<p class=\"alert\"><a href=\"#warnings\">#{failed} setup boot(s) failed</a></p>" : ""
        "<header><h1>rackbench <span>#{h(title)}</span></h1><p class=\"facts\">#{facts.map { |f| h(f) }.join(' · ')}</p>" \
          "<p class=\"sub\">#{h([m['cpu_model'], m['cores'] && "#{m['cores']} cores", m['ruby'].to_s.split[0, 2].join(' ')].compact.join(' · '))}" \
          "</p>#{alert}</header>"
      end

      def overview
        level = @data.common_level or return nil
        section("overview", "At c = #{level}: req/s",
                "#{Leaders.new(@data, level).render}" \
                "<p class=\"note\">Median of the repetitions; whiskers and hover show the 95% interval. " \
                "The highest concurrency every setup ran at.</p><div class=\"grid\">" \
                "#{figure('bars-by-endpoint', 'By endpoint')}#{figure('bars-by-setup', 'By setup')}</div>")
      end

      def endpoint_section(endpoint, index)
        section("endpoint-#{index}", endpoint,
                "<div class=\"grid\">#{figure(ChartData.chart_id('rps', index), 'req/s vs concurrency')}" \
                "#{figure(ChartData.chart_id('latency', index), 'Response time vs concurrency (solid: mean, dashed: p99)')}" \
                "</div>#{@sections.numbers_table(endpoint)}", code: true)
      end

      def resources
        parts = []
        parts << figure("memory", "Memory per setup: PSS footprint and per worker (median over its trials; whiskers: range)") if @data.memory?
        parts << figure("cpu", "CPU at c = #{@data.common_level}: server vs load generator") if @data.cpu?
        return nil if parts.empty?

        section("resources", "Memory and CPU", "<div class=\"grid\">#{parts.join}</div>")
      end

      def figure(id, caption)
        "<figure class=\"chart\" data-chart=\"#{h(id)}\"><figcaption>#{h(caption)}</figcaption>" \
          "<div class=\"canvas-box\"><canvas id=\"chart-#{h(id)}\" role=\"img\" aria-label=\"#{h(caption)}\"></canvas></div></figure>"
      end

      def section(id, heading, content, code: false)
        title = code ? "<code>#{h(heading)}</code>" : h(heading)
        "<section id=\"#{h(id)}\"><h2>#{title}</h2>#{content}</section>"
      end
    end
  end
end
