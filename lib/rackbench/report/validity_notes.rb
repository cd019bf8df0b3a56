# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/validity"
require_relative "../stats/littles_law"

module Rackbench
  module Report
    # What the reports say about cells they cannot trust (Stats::Validity):
    # "?" on a cell that is not valid, one line per kind of problem naming
    # its cells (and the -d a trial too short needs), and wrk's latency
    # correction as a note, not an alarm: one line naming its cells. Shared
    # by the terminal and Markdown; the HTML report reads the same checks.
    module ValidityNotes
      FLAG = " ?"
      HEAD = {
        "short" => "too short for their latency",
        "little" => "Little's law fails beyond its ±#{(Stats::LittlesLaw::TOLERANCE * 100).round}% tolerance",
        "schedule" => "the trial did not hold"
      }.freeze

      module_function

      def check(cell) = Stats::Validity.cell(cell.trials)

      # The cell's flag ("" when valid).
      def flag(cell)
        check(cell).valid? ? "" : FLAG
      end

      # why: where each cell's full reason is (nil: the lines give them).
      def lines(cells, why: nil)
        checks = cells.cells.to_h { |c| [c, check(c)] }
        invalid(cells, checks.reject { |_, v| v.valid? }, why) + artifact(cells, checks)
      end

      def name(cells, cell)
        "#{cell.endpoint} #{cells.level_label(cell.level)} #{cell.setup}"
      end

      def invalid(cells, bad, why)
        return [] if bad.empty?

        out = ["? = not valid, left out of the answer (#{bad.size} cell#{bad.size == 1 ? '' : 's'}):"]
        HEAD.each do |kind, head|
          group = bad.select { |_, v| v.kinds.include?(kind) }
          next if group.empty?

          out << "  #{head}: #{group.map { |c, v| named(cells, c, v, kind, why) }.join(', ')}#{tail(group, kind, why)}"
        end
        out
      end

      def named(cells, cell, check, kind, why)
        text = name(cells, cell)
        return "#{text} (-d #{check.needs_s})" if kind == "short"
        return text if why

        "#{text} (#{check.problems.find { |p| p.kind == kind }.text})"
      end

      def tail(group, kind, why)
        if kind == "short"
          need = group.map { |_, v| v.needs_s }.max
          return "; a trial needs #{Stats::Validity::FACTOR}x the time per request: run again with -d #{need} or longer"
        end
        why ? " (each one's reason: #{why})" : ""
      end

      # wrk's synthetic samples: one note for every cell they touched.
      def artifact(cells, checks)
        touched = checks.reject { |_, v| v.artifacts.empty? }
        return [] if touched.empty?

        listed = touched.map do |c, v|
          "#{name(cells, c)} #{format('%+d%%', ((v.artifacts.map(&:ratio).max - 1) * 100).round)}"
        end
        ["Note (wrk's latency correction, not an error): req/s × mean latency comes out above c in #{listed.join(', ')}: " \
         "wrk adds synthetic samples for responses slower than twice the mean, so these cells' mean and percentiles " \
         "overstate; their req/s stands."]
      end
    end
  end
end
