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

      def check(cell) = Stats::Validity.cell(cell.records) # fields read, trials not decoded (Stats::Cells)

      # The cell's flag ("" when valid).
      def flag(cell)
        check(cell).valid? ? "" : FLAG
      end

      # why: where each cell's full reason is (nil: the lines give them).
      # One cell's check at a time: only the names of those not valid and
      # the ratios of those wrk's correction touched are kept (a huge run's
      # 100,000 checks at once were a fifth of its report's memory).
      def lines(cells, why: nil)
        bad = 0
        names = {} # kind => the cells' names, ", "-joined
        needs = [] # the -d each cell too short needs
        touched = {}
        cells.cells.each do |cell|
          check = check(cell)
          touched[cell] = artifact_ratio(check) unless check.artifacts.empty?
          next if check.valid?

          bad += 1
          HEAD.each_key do |kind|
            next unless check.kinds.include?(kind)

            text = named(cells, cell, check, kind, why)
            names[kind] ? names[kind] << ", " << text : names[kind] = +text
            needs << check.needs_s if kind == "short"
          end
        end
        invalid_lines(bad, names, needs, why) + artifact(cells, touched)
      end

      def invalid_lines(bad, names, needs, why)
        return [] if bad.zero?

        ["? = not valid, left out of the answer (#{bad} cell#{bad == 1 ? '' : 's'}):"] +
          HEAD.filter_map { |kind, head| names[kind] && "  #{head}: #{names[kind]}#{kind_tail(kind, needs, why)}" }
      end

      def kind_tail(kind, needs, why)
        return "; a trial needs #{Stats::Validity::FACTOR}x the time per request: run again with -d #{needs.max} or longer" if kind == "short"

        why ? " (each one's reason: #{why})" : ""
      end

      def name(cells, cell)
        "#{cell.endpoint} #{cells.level_label(cell.level)} #{cell.setup}"
      end

      def named(cells, cell, check, kind, why)
        text = name(cells, cell)
        return "#{text} (-d #{check.needs_s})" if kind == "short"
        return text if why

        "#{text} (#{check.problems.find { |p| p.kind == kind }.text})"
      end

      # The highest req/s x mean latency / c of a check's trials that wrk's
      # correction touched.
      def artifact_ratio(check) = check.artifacts.map(&:ratio).max

      # wrk's synthetic samples: one note for every cell they touched
      # (ratios: cell => its artifact_ratio).
      def artifact(cells, ratios)
        return [] if ratios.empty?

        listed = ratios.map { |c, ratio| "#{name(cells, c)} #{format('%+d%%', ((ratio - 1) * 100).round)}" }
        ["Note (wrk's latency correction, not an error): req/s × mean latency comes out above c in #{listed.join(', ')}: " \
         "wrk adds synthetic samples for responses slower than twice the mean, so these cells' mean and percentiles " \
         "overstate; their req/s stands."]
      end
    end
  end
end
