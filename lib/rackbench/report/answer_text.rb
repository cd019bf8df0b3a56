# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/decisions"
require_relative "number_format"
require_relative "decision_text"
require_relative "quiet_notes"

module Rackbench
  module Report
    # The answer before the tables: per endpoint, at the highest load level
    # every setup reached, the setup with the most req/s (median of its
    # rounds), and the decision against the next one (Stats::Decisions: the
    # run's family, paired by round, Holm), in the words of DecisionText.
    # One round cannot decide, and the line says so instead of ranking by a
    # single measurement. A leader or runner-up measured under foreign load
    # says so (QuietNotes' "~").
    module AnswerText
      module_function

      def lines(trials, decisions)
        cells = Stats::Cells.new(trials.select { |t| t["rps"] })
        cells.endpoints.filter_map { |endpoint| line(cells, decisions, endpoint) }
      end

      def render(trials, decisions, io)
        body = lines(trials, decisions)
        return if body.empty?

        io.puts "Answer (req/s at the highest level every setup reached; the decision against the next setup):"
        body.each { |l| io.puts "  #{l}" }
      end

      def line(cells, decisions, endpoint)
        setups = cells.setups(endpoint)
        level = cells.levels(endpoint).reverse.find { |l| setups.all? { |s| cells[endpoint, s, l] } }
        return nil unless level

        ranked = setups.map { |s| cells[endpoint, s, level] }.sort_by { |c| -c.rps.median.to_f }
        best, second = ranked
        head = "#{endpoint} #{cells.level_label(level)}: #{best.setup} #{NumberFormat.rps(best.rps.median)} req/s#{mark(best)}"
        return "#{head} (the only setup)" unless second

        "#{head} vs #{second.setup} #{NumberFormat.rps(second.rps.median)}#{mark(second)}: " \
          "#{versus(decisions, endpoint, level, best, second)}"
      end

      def versus(decisions, endpoint, level, best, second)
        entry = decisions.for_cell(endpoint, level).find { |e| e.metric == "rps" && e.a == best.setup && e.b == second.setup }
        return DecisionText.phrase(entry) if entry

        rounds = [best, second].map { |c| c.trials.size }.min
        return "no decision: a round of one of them served no request" if rounds > 1

        "one round cannot decide (run -r 3 or more, or --decide)"
      end

      def mark(cell)
        QuietNotes.flag(cell.trials).empty? ? "" : " ~"
      end
    end
  end
end
