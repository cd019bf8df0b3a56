# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/verdict"
require_relative "verdict_grid"
require_relative "validity_notes"

module Rackbench
  module Report
    # The full reasons behind the grid of labels (VerdictGrid), for
    # rackbench report RUN_DIR --why: per cell, what limited it and the
    # numbers that say so (Stats::Verdict), then each cell where Little's law
    # does not hold, marked as wrk's latency correction (a note) or as a
    # figure not to trust (Stats::Validity). Renders stored trials only.
    class VerdictNotes
      def initialize(trials, io:)
        @cells = Stats::Cells.new(trials)
        @io = io
      end

      def render
        return if @cells.cells.empty?

        @io.puts
        @io.puts "Why (rules: Stats::Verdict):"
        broken = []
        @cells.endpoints.each do |endpoint|
          @cells.levels(endpoint).each do |level|
            @cells.setups(endpoint).each do |setup|
              cell = @cells[endpoint, setup, level] or next
              verdict = Stats::Verdict.for_cell(cell.trials)
              where = ValidityNotes.name(@cells, cell)
              @io.puts "  #{where}: #{VerdictGrid.short(verdict.label)}: #{verdict.reason}"
              broken << "  #{where}: #{little(cell, verdict.little)}" if verdict.little&.holds == false
            end
          end
        end
        @io.puts(*broken) unless broken.empty?
      end

      private

      def little(cell, check)
        artifact = ValidityNotes.check(cell).artifacts.any? { |a| a.ratio == check.ratio }
        artifact ? "(a note, not an error) #{check.note}" : check.note
      end
    end
  end
end
