# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/cell_split"
require_relative "columns"

module Rackbench
  module Report
    # Where a request's time went, per cell, from the in-process probe's
    # split (Stats::CellSplit: per-request means over the cell's trials,
    # weighted by their requests): CPU (the request thread's CPU clock), GC,
    # SQL and views (Rails' notifications, where the app has them), waiting
    # (wall less CPU: IO, sleep, the GVL, which Ruby 3.1 cannot tell
    # apart, or runnable time without a CPU: the split's runq_ms), wall, and the threads one process's GVL saturates at (1/f,
    # f = CPU over wall). Printed only when some cell has a split (the
    # arena always; a user's app with --probe); "-" where a figure is absent
    # (no Active Record: no SQL). Stats::Verdict's reasons (--why) say the same
    # in words.
    class SplitTable
      COLUMNS = [["CPU", "cpu_ms"], ["GC", "gc_ms"], ["SQL", "sql_ms"], ["views", "view_ms"],
                 ["waiting", "waiting_ms"], ["wall", "wall_ms"]].freeze

      def initialize(trials, io:)
        @cells = Stats::Cells.new(trials)
        @io = io
      end

      def render
        rows = @cells.endpoints.flat_map { |endpoint| endpoint_rows(endpoint) }
        return if rows.empty?

        header = ["time per request (ms)"] + COLUMNS.map(&:first) + ["1/f threads"]
        @io.puts
        Columns.print(@io, [header] + rows)
        @io.puts "From the in-process probe: CPU is the request thread's own clock; waiting = wall - CPU (IO, sleep " \
                 "or the GVL); 1/f: threads one process's GVL saturates at."
      end

      private

      def endpoint_rows(endpoint)
        @cells.levels(endpoint).flat_map do |level|
          @cells.setups(endpoint).filter_map do |setup|
            cell = @cells[endpoint, setup, level] or next
            split = Stats::CellSplit.of(cell.trials) or next
            ["#{endpoint} #{@cells.level_label(level)} #{setup}"] + COLUMNS.map { |_, key| ms(split[key]) } +
              [split["threads_per_process"] ? format("%.1f", split["threads_per_process"]) : "-"]
          end
        end
      end

      def ms(value)
        return "-" if value.nil?

        return format("%.0f", value) if value >= 10

        value >= 1 ? format("%.1f", value) : format("%.2f", value)
      end
    end
  end
end
