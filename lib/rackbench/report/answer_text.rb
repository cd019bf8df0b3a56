# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/decisions"
require_relative "number_format"
require_relative "decision_text"
require_relative "quiet_notes"
require_relative "validity_notes"
require_relative "race_text"
require_relative "../stats/attribution_text"

module Rackbench
  module Report
    # The answer before the tables: per endpoint, at the highest load level
    # every setup reached (and where at least one cell is valid), the setup
    # with the most req/s (median of its rounds), and the decision against
    # the next one (Stats::Decisions: paired by round, the req/s family's
    # interval), in the words of DecisionText. One round cannot decide, and the
    # line says so instead of ranking by a single measurement. A cell that is
    # not valid (Stats::Validity: too short for its latency, Little's law
    # failing) is never ranked: the line names it as left out. A leader or
    # runner-up measured under foreign load says so (QuietNotes' "~"), and a
    # line under the answer says what that mark means. The terminal, Markdown
    # and the HTML report all read these entries.
    module AnswerText
      HEAD = "Answer (req/s at the highest level every setup reached; the decision against the next setup, or the cell's race):"
      FOREIGN = "~ = measured under foreign load: a lead marked ~ may be other processes' doing; quiet the machine " \
                "and measure again"

      # ranked: the level's valid cells, most req/s first; left_out: its
      # cells that are not valid; versus: the decision's words (nil with one cell).
      # race: the cell's Stats::Race::Cell when the run was a race.
      # why: run --profile's lines under a decided pair (Stats::AttributionText), [] otherwise.
      Entry = Struct.new(:endpoint, :level, :ranked, :left_out, :versus, :race, :why, keyword_init: true) do
        def best = ranked[0]
        def second = ranked[1]

        def foreign?
          ranked.first(2).any? { |c| QuietNotes.foreign_cell?(c) }
        end
      end

      module_function

      # cells: the Cells of these same trials when the caller has them (one
      # grouping of a huge run, not two); used when every trial has its req/s.
      # attributions: Report::Dataset#attributions (run --profile), {} otherwise.
      def entries(trials, decisions, cells: nil, attributions: {})
        cells = nil unless cells && trials.all? { |t| t["rps"] }
        cells ||= Stats::Cells.new(trials.select { |t| t["rps"] })
        cells.endpoints.filter_map { |endpoint| entry(cells, decisions, endpoint, attributions) }
      end

      # A dataset's run --profile attributions ({} for one that has none, or a test's stand-in).
      def attributions(data)
        data.respond_to?(:attributions) ? data.attributions : {}
      end

      def lines(trials, decisions)
        entries(trials, decisions).map { |e| line(e) }
      end

      # The lines under the answer: what "~" means, when a lead carries it.
      def footnotes(entries)
        entries.any?(&:foreign?) ? [FOREIGN] : []
      end

      def render(trials, decisions, io, cells: nil, attributions: {})
        found = entries(trials, decisions, cells: cells, attributions: attributions)
        return if found.empty?

        io.puts HEAD
        found.each do |e|
          io.puts "  #{line(e)}"
          e.why.each { |l| io.puts "    #{l}" }
        end
        footnotes(found).each { |l| io.puts "  #{l}" }
      end

      # The answer block at the head of a rendered table (Table#render
      # prints it first), after a blank line: what run prints again as its
      # last lines. "" when the table has none (one setup).
      def block(table_text)
        return "" unless table_text.start_with?("#{HEAD}\n")

        lines = table_text.lines
        "\n#{lines.first}#{lines.drop(1).take_while { |l| l.start_with?('  ') }.join}"
      end

      def entry(cells, decisions, endpoint, attributions = {})
        setups = cells.setups(endpoint)
        reached = cells.levels(endpoint).reverse.select { |l| setups.all? { |s| cells[endpoint, s, l] } }
        return nil if reached.empty?

        valid = ->(l) { setups.map { |s| cells[endpoint, s, l] }.select { |c| ValidityNotes.check(c).valid? } }
        level = reached.find { |l| valid.call(l).any? } || reached.first
        ranked = valid.call(level).sort_by { |c| -c.rps.median.to_f }
        left_out = setups.map { |s| cells[endpoint, s, level] } - ranked
        e = Entry.new(endpoint: endpoint, level: cells.level_label(level), ranked: ranked, left_out: left_out, why: [])
        e.versus = versus(decisions, endpoint, level, ranked[0], ranked[1]) if ranked[1]
        why = ranked[1] && attributions[[endpoint, level, ranked[0].setup, ranked[1].setup]]
        e.why = [Stats::AttributionText.line(why), Stats::AttributionText.check(why)] if why
        e.race = decisions.race && decisions.race[endpoint, level]
        e
      end

      def line(entry)
        where = "#{entry.endpoint} #{entry.level}"
        left = entry.left_out.map { |c| "#{c.setup}#{ValidityNotes::FLAG}" }.join(", ")
        return "#{where}: no valid cell (#{left}; see the notes under the tables)" unless entry.best

        if entry.race
          text = "#{where}: #{RaceText.line(entry.race, entry.ranked.to_h { |c| [c.setup, c] })}"
          return entry.left_out.empty? ? text : "#{text}; left out, not valid: #{left}"
        end

        head = "#{where}: #{cell_text(entry.best)} req/s#{mark(entry.best)}"
        text = if entry.second
                 "#{head} vs #{entry.second.setup} #{NumberFormat.rps(entry.second.rps.median)}#{mark(entry.second)}: #{entry.versus}"
               else
                 "#{head} (#{entry.left_out.empty? ? 'the only setup' : 'the only valid cell'})"
               end
        entry.left_out.empty? ? text : "#{text}; left out, not valid: #{left}"
      end

      def cell_text(cell)
        "#{cell.setup} #{NumberFormat.rps(cell.rps.median)}"
      end

      def versus(decisions, endpoint, level, best, second)
        entry = decisions.for_cell(endpoint, level).find { |e| e.metric == "rps" && e.a == best.setup && e.b == second.setup }
        return DecisionText.phrase(entry) if entry

        rounds = [best, second].map { |c| c.trials.size }.min
        return "no decision: a round of one of them served no request" if rounds > 1

        "one round cannot decide (run -r 3 or more, or --decide)"
      end

      def mark(cell)
        QuietNotes.foreign_cell?(cell) ? QuietNotes::FLAG : ""
      end
    end
  end
end
