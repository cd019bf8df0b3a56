# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "number_format"

module Rackbench
  module Report
    # The terminal table: one per endpoint, setups as rows, concurrency levels
    # as columns; each cell "req/s  mean/p99". Errors are flagged with "!" and
    # failed setups are listed under the table. Renders stored trials only.
    class Table
      def initialize(trials, setups: [], io: $stdout)
        @cells = Stats::Cells.new(trials)
        @failed = setups.select { |s| s["status"] == "failed" }
        @io = io
      end

      def render
        @cells.endpoints.each { |endpoint| render_endpoint(endpoint) }
        render_failures
        @io.puts "Latency is closed-loop (measured from each request's send; hides coordinated omission). " \
                 "Cells: req/s  mean/p99 latency; ! = errors." if @cells.cells.any?
      end

      private

      def render_endpoint(endpoint)
        levels = @cells.levels(endpoint)
        rows = @cells.setups(endpoint).map do |setup|
          [setup] + levels.map { |c| cell_text(@cells[endpoint, setup, c]) }
        end
        header = ["#{endpoint}"] + levels.map { |c| "c=#{c}" }
        @io.puts
        print_rows([header] + rows)
      end

      def cell_text(cell)
        return "-" unless cell

        rps = NumberFormat.rps(cell.rps.median)
        rps += " ±#{format('%.0f', cell.rps.cv * 100)}%" if cell.rps.cv
        lat = "#{NumberFormat.ms(cell.latency('mean').median)}/#{NumberFormat.ms(cell.latency('p99').median)}"
        flag = cell.errors.positive? ? " !#{cell.errors}" : ""
        "#{rps}  #{lat}#{flag}"
      end

      def print_rows(rows)
        widths = rows.transpose.map { |col| col.map(&:length).max }
        rows.each_with_index do |row, i|
          @io.puts row.each_with_index.map { |text, j| j.zero? ? text.ljust(widths[j]) : text.rjust(widths[j]) }.join("  ")
          @io.puts widths.map { |w| "-" * w }.join("  ") if i.zero?
        end
      end

      def render_failures
        @failed.each { |f| @io.puts "FAILED #{f['setup']} (repetition #{f['repetition']}): #{f['reason']}" }
      end
    end
  end
end
