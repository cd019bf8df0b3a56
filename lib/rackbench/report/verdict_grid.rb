# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/verdict"
require_relative "columns"

module Rackbench
  module Report
    # The verdicts on the terminal, compact: per endpoint a grid of short
    # labels, setups x levels (Stats::Verdict of each cell), then a legend of
    # the labels shown. The reasons behind each label, with their numbers,
    # are VerdictNotes' (rackbench report RUN_DIR --why); HTML and Markdown
    # print them beside the labels. Renders stored trials only.
    class VerdictGrid
      # Stats::Verdict's labels, shortened for a grid cell; a label not
      # listed here stands as it is.
      SHORT = { "memory/errors" => "errors", "load generator" => "client", "GVL-bound" => "GVL", "CPU-bound" => "CPU",
                "below capacity" => "below", "CPU-bound per process" => "CPU/process", "server fell behind" => "behind",
                "pool exhausted" => "pool", "GC-heavy" => "GC", "database-bound" => "database" }.freeze
      LEGEND = {
        "CPU" => "CPU-bound: the server used the CPU left to it",
        "GVL" => "GVL-bound: a process ran near one core with requests in flight while cores had no server process",
        "workers busy" => "requests queued or every worker was busy, CPU not the limit: more workers would help",
        "threads busy" => "requests queued or every thread was busy, CPU not the limit: more threads or workers would help",
        "below" => "below capacity: nothing saturated, more load would raise throughput",
        "CPU/process" => "each single-threaded process used a whole core while cores stayed idle: more processes would help",
        "unbalanced" => "requests split unevenly over workers while slots sat idle: the reason names the split",
        "pool" => "requests waited for an Active Record connection: a pool smaller than the threads",
        "GC" => "CPU was the limit and GC took a fifth or more of it",
        "database" => "every slot busy and SQL most of a request's time: the threads wait for the database",
        "upstream" => "the upstream's delay is most of the latency",
        "behind" => "the server fell behind an open-loop schedule (the reason says what limited it)",
        "client" => "the load generator was the limit: its CPU, its open-loop sends running late, or a load host",
        "errors" => "requests failed or workers restarted: req/s is not the server's capacity",
        "unknown" => "not told: no process samples or no queue reading"
      }.freeze

      def self.short(label) = SHORT.fetch(label, label)

      # run_dir: named in the pointer to the reasons (nil: "RUN_DIR");
      # why: the reasons follow the grid (VerdictNotes); cells: the trials'
      # Cells when the caller has them.
      def initialize(trials, io:, run_dir: nil, why: false, cells: nil)
        @cells = cells || Stats::Cells.new(trials)
        @io = io
        @run_dir = run_dir
        @why = why
      end

      def render
        return if @cells.cells.empty?

        @io.puts
        where = @why ? "below" : "rackbench report #{@run_dir || 'RUN_DIR'} --why"
        @io.puts "What limited each cell (Stats::Verdict; the reasons: #{where}):"
        shown = []
        @cells.endpoints.each_with_index do |endpoint, i|
          @io.puts if i.positive?
          levels = @cells.levels(endpoint)
          rows = @cells.setups(endpoint).map do |setup|
            [setup] + levels.map { |level| label(@cells[endpoint, setup, level]).tap { |l| shown << l } }
          end
          print_rows([[endpoint.to_s] + levels.map { |l| @cells.level_label(l) }] + rows)
        end
        legend(shown.uniq - ["-"])
      end

      private

      def print_rows(rows)
        Columns.print(@io, rows)
      end

      def label(cell)
        return "-" unless cell

        self.class.short(Stats::Verdict.for_cell(cell.trials).label)
      end

      def legend(labels)
        width = labels.map(&:length).max
        ordered = LEGEND.keys.select { |l| labels.include?(l) } + (labels - LEGEND.keys)
        ordered.each { |l| @io.puts "  #{l.ljust(width)}  #{LEGEND.fetch(l, 'see --why')}" }
      end
    end
  end
end
