# frozen_string_literal: true

require_relative "dataset"
require_relative "streams"
require_relative "number_format"
require_relative "html/escape"
require_relative "html/chart_data"
require_relative "html/sections"
require_relative "html/answer"
require_relative "html/capacity"
require_relative "html/capacity_answer"
require_relative "html/tune_answer"
require_relative "html/bottleneck"
require_relative "html/flame_graphs"
require_relative "../store/run_dir"
require_relative "../version"
require_relative "../error"

module Rackbench
  module Report
    # The HTML report: one self-contained file that opens offline. It leads
    # with the command's answer (Answer: the terminal's answer lines for a
    # run; CapacityAnswer: each setup's knees for a capacity search), and
    # says what it cannot trust: "~" on cells measured under foreign load,
    # "?" on cells not valid (greyed, left out of the answer), with the
    # warnings in the header and the Warnings section. A tune run (meta.json
    # "command" == "tune") shows TuneAnswer's sections (the recommendation,
    # the Pareto table, the rounds) instead of the ordinary ones, whose
    # setups x levels would be mostly blank over the levels its search chose.
    # Chart.js
    # (vendored by bin/vendor-charts), the page's CSS and script and the data
    # are all inlined; a Content-Security-Policy allows no network at all and
    # only the page's own two scripts (by hash), so nothing from the run
    # directory can run as code. report.js writes data-points="N" on each
    # chart and data-report="ready" on <body> once every chart is drawn.
    #
    # Streamed (issue 35): #write puts out the page a section at a time,
    # into `report --format html`'s output and into the run directory's
    # report.html alike (Formats::PAGE, written at the end of run, capacity
    # and tune by Formats.save_page through the same "html" format). A
    # run of more than ChartData::ENDPOINTS endpoints (100,000 cells) is
    # charted for its first ChartData::ENDPOINTS only (each chart a canvas:
    # a browser draws a few hundred, not 50,000); the tables show every
    # cell, and the page says so (ChartData#limit_note).
    #
    # A run directory with capacity.jsonl (rackbench capacity) gets a Capacity
    # section per endpoint: p99 against the load level, per loop. Such a run
    # holds closed-loop trials (levels are connections) and open-loop trials
    # (levels are offered req/s) of the same setup and endpoint, at levels the
    # search chose; the ordinary sections would put both on one "concurrency"
    # axis and take medians over unrelated levels. So for a capacity run
    # (meta.json "command" == "capacity") the page shows the Capacity sections
    # and leaves out the overview, per-endpoint and memory/CPU sections; the
    # warnings, method, environment and server-boot sections stay.
    class Html
      include Escape
      include Streams # #render: #write's page as one String

      ASSETS = File.join(__dir__, "html")
      VENDOR = File.join(__dir__, "vendor")

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

      # capacity: the rows of capacity.jsonl; read from the dataset's run
      # directory when not given (rackbench report builds only the dataset).
      def initialize(dataset, capacity: nil)
        @data = dataset
        @capacity_run = dataset.meta["command"] == "capacity"
        @tune = dataset.meta["command"] == "tune" ? TuneAnswer.new(dataset) : nil
        rows = capacity || capacity_rows(dataset.path)
        @capacity = Capacity.new(dataset, rows)
        @answer = @capacity_run ? CapacityAnswer.new(dataset, @capacity, rows) : Answer.new(dataset)
        @flames = FlameGraphs.new(dataset)
        chart_data = ChartData.new(dataset)
        @chart_data = chart_data
        @bottleneck = Bottleneck.new(dataset, chart: chart_data.method(:chart), color: chart_data.method(:setup_color))
        ordinary = @capacity_run || @tune ? [] : chart_data.charts + @bottleneck.charts
        @charts = ordinary + @capacity.charts
        # Like a capacity search, tune measures past each knee on purpose.
        @sections = Sections.new(dataset, capacity: @capacity_run || !@tune.nil?)
      end

      # The page into io: the head, each part of the body as it is made, the
      # charts' data one chart at a time, the scripts.
      def write(io)
        library = inline_script(self.class.chart_library)
        script = inline_script(File.read(File.join(ASSETS, "report.js")))
        io.write(head(library, script))
        first = true
        body do |part|
          next if part.nil?

          io.write("\n") unless first
          part.is_a?(Enumerator) ? part.each { |piece| io.write(piece) } : io.write(part)
          first = false
        end
        io.write("\n<script type=\"application/json\" id=\"rackbench-data\">{\"charts\":[")
        @charts.each_with_index { |chart, i| io.write(i.zero? ? json_for_script(chart) : ",#{json_for_script(chart)}") }
        io.write("]}</script>\n<script>#{library}</script>\n<script>#{script}</script>\n</body>\n</html>\n")
      end

      private

      def head(library, script)
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
        HTML
      end

      def title
        @data.path ? File.basename(@data.path.to_s.chomp("/")) : @data.meta["started_at"].to_s
      end

      def capacity_rows(path)
        path && File.directory?(path.to_s) ? Store::RunDir.new(path.to_s).capacity : []
      end

      # Yields the body's parts in order (nil: a part this run has not),
      # each endpoint's section as it is made.
      def body(&part)
        empty = @data.trials.empty? ? section("empty", "No trials", "<p>No trials are stored in this run directory yet.</p>") : nil
        return tune_body(empty).each(&part) if @tune

        [header, empty, answer, flames, *capacity_sections].each(&part)
        unless @capacity_run
          yield overview
          @data.endpoints.each_with_index { |e, i| yield endpoint_section(e, i) }
          yield resources
        end
        [streamed("warnings", "Warnings", @sections.method(:each_warnings_piece)), section("method", "Method", @sections.method_list),
         section("environment", "Environment", @sections.environment), section("setups", "Server boots", @sections.setups_table)].each(&part)
      end

      def tune_body(empty)
        pareto = @tune.pareto
        rounds = @tune.rounds
        [header, empty, section("answer", "Answer: the recommended setup", @tune.answer),
         pareto && section("pareto", "Throughput vs memory", pareto), rounds && section("rounds", "Rounds", rounds),
         section("warnings", "Warnings", @sections.warnings), section("method", "Method", @tune.method_list),
         section("environment", "Environment", @sections.environment),
         section("setups", "Server boots", @sections.setups_table)]
      end

      def answer
        return streamed("answer", "Answer", @answer.method(:each_piece)) if @answer.respond_to?(:each_piece) && @answer.entries.any?

        content = @answer.render
        content.empty? ? nil : section("answer", "Answer", content)
      end

      # run --profile: each decided pair's differential flame graph (FlameGraphs).
      def flames
        @capacity_run || !@flames.any? ? nil : streamed("flames", "Where the time went (run --profile)", @flames.method(:each_piece))
      end

      # A section whose content comes a piece at a time (pieces: a method
      # yielding them), written as it comes: section(id, heading, the pieces joined).
      def streamed(id, heading, pieces)
        Enumerator.new do |y|
          y << "<section id=\"#{h(id)}\"><h2>#{h(heading)}</h2>"
          pieces.call { |piece| y << piece }
          y << "</section>"
        end
      end

      def capacity_sections
        if @capacity_run && !@capacity.any?
          return [section("capacity", "Capacity", "<p>No capacity level is recorded in this run directory (capacity.jsonl) yet.</p>")]
        end

        @capacity.endpoints.each_with_index.map do |endpoint, i|
          section("capacity-#{i}", endpoint, @capacity.content(endpoint, i) { |id, caption| figure(id, caption) },
                  code: true, prefix: "Capacity")
        end
      end

      def header
        m = @data.meta
        min, max = @data.repetitions
        facts = if @tune
                  @tune.facts
                elsif @capacity_run
                  capacity_facts
                elsif @data.trials.empty?
                  []
                else
                  ["#{@data.setups.size} setups", "#{@data.endpoints.size} endpoints", @data.levels.map { |c| @data.cells.level_label(c) }.join(", "),
                 min == max ? NumberFormat.count(min, "repetition") : "#{min}–#{max} repetitions", @data.loops.map { |l| "#{l} loop" }.join(", "),
                   [m.dig("engine", "name"), m.dig("engine", "version")].compact.join(" ")]
                end.reject { |f| f.to_s.strip.empty? }
        "<header><h1>rackbench <span>#{h(title)}</span></h1><p class=\"facts\">#{facts.map { |f| h(f) }.join(' · ')}</p>" \
          "<p class=\"sub\">#{h([m['cpu_model'], m['cores'] && "#{m['cores']} cores", m['ruby'].to_s.split[0, 2].join(' ')].compact.join(' · '))}" \
          "</p>#{alerts}</header>"
      end

      # Failed boots, foreign load and cells not valid, each a link to the warnings.
      def alerts
        failed = @data.failed_setups.size
        busy = @data.trials.count { |t| QuietNotes.foreign?(t) }
        invalid = @capacity_run || @tune ? 0 : @data.cells.cells.count { |c| !ValidityNotes.check(c).valid? }
        items = [(failed.positive? && "#{failed} setup boot(s) failed"),
                 (busy.positive? && "machine not quiet: #{busy} of #{@data.trials.size} trials under foreign load (~)"),
                 (invalid.positive? && "#{invalid} cell#{invalid == 1 ? '' : 's'} not valid (?)")].select { |i| i }
        return "" if items.empty?

        "<p class=\"alert\">#{items.map { |i| "<a href=\"#warnings\">#{h(i)}</a>" }.join(' ')}</p>"
      end

      def capacity_facts
        count = ->(n, word) { "#{n} #{word}#{n == 1 ? '' : 's'}" }
        ["capacity search", count.call(@capacity.setups.size, "setup"), count.call(@capacity.endpoints.size, "endpoint"),
         "SLO #{@capacity.describe_slo}", count.call(@data.trials.size, "trial")]
      end

      def overview
        level = @data.common_level or return nil
        section("overview", "At c = #{level}: req/s",
                "<p class=\"note\">Median of the repetitions; whiskers and hover show the 95% interval. " \
                "The highest concurrency every setup ran at.</p>#{limit_note}<div class=\"grid\">" \
                "#{figure('bars-by-endpoint', 'By endpoint')}#{figure('bars-by-setup', 'By setup')}</div>")
      end

      def endpoint_section(endpoint, index)
        return uncharted_section(endpoint, index) unless @chart_data.charted?(index)

        section("endpoint-#{index}", endpoint,
                "<div class=\"grid\">#{figure(ChartData.chart_id('rps', index), 'req/s vs concurrency')}" \
                "#{figure(ChartData.chart_id('latency', index), 'Response time vs concurrency (solid: mean, dashed: p99)')}" \
                "</div>#{@sections.numbers_table(endpoint)}#{@bottleneck.content(endpoint, index, method(:figure))}", code: true)
      end

      # An endpoint past the charted ones: its tables, without charts.
      def uncharted_section(endpoint, index)
        section("endpoint-#{index}", endpoint,
                "#{limit_note}#{@sections.numbers_table(endpoint)}<h3>What limited each cell</h3>#{@bottleneck.verdict_table(endpoint)}",
                code: true)
      end

      def limit_note
        note = @chart_data.limit_note or return ""
        "<p class=\"note limit\">#{h(note)}</p>"
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

      def section(id, heading, content, code: false, prefix: nil)
        title = code ? "<code>#{h(heading)}</code>" : h(heading)
        title = "#{h(prefix)} #{title}" if prefix
        "<section id=\"#{h(id)}\"><h2>#{title}</h2>#{content}</section>"
      end
    end
  end
end
