# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/verdict"

module Rackbench
  module Report
    # The terminal's notes under the tables: per cell, what limited it and
    # the numbers that say so (Stats::Verdict), and each cell where Little's
    # law does not hold. Renders stored trials only.
    class VerdictNotes
      def initialize(trials, io:)
        @cells = Stats::Cells.new(trials)
        @io = io
      end

      def render
        return if @cells.cells.empty?

        @io.puts "What limited each cell (rules: Stats::Verdict):"
        broken = []
        @cells.endpoints.each do |endpoint|
          @cells.levels(endpoint).each do |level|
            @cells.setups(endpoint).each do |setup|
              cell = @cells[endpoint, setup, level] or next
              verdict = Stats::Verdict.for_cell(cell.trials)
              where = "#{endpoint} #{@cells.level_label(level)} #{setup}"
              @io.puts "  #{where}: #{verdict.text}"
              broken << "  #{where}: #{verdict.little.note}" if verdict.little&.holds == false
            end
          end
        end
        @io.puts(*broken) unless broken.empty?
      end
    end
  end
end
