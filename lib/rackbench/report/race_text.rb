# frozen_string_literal: true

require_relative "../stats/decision_text"
require_relative "number_format"
require_relative "quiet_notes"

module Rackbench
  module Report
    # The answer's words for a cell that was a race (Stats::Race): the
    # winner, the equivalence group of leaders, or the race still open, with
    # the interval each was decided on (the race's family: every pair of the
    # cell's setups, at its look):
    #
    #   /hello c=8: falcon x2 11731 req/s fastest: puma x2:5 10116 slower by 14% (95% CI 9-19%); thin, unicorn x2 slower too
    #   /pause/0.05 c=8: puma x2:5 154 req/s and falcon x2 152 lead, equivalent within +-5% (95% CI -2% to +1%); thin slower
    #   /fibonacci/25 c=8: undecided after 6 rounds: puma x2:5 153 req/s leads; pitchfork x2 142 undecided (...), 2 more racing; thin slower
    module RaceText
      module_function

      # race: the cell's Stats::Race::Cell; cells: {setup => Cells::Cell}
      # of the answer's level (their medians are the numbers shown).
      def line(race, cells)
        rps = ->(s) { cells[s] ? "#{NumberFormat.rps(cells[s].rps.median)}#{mark(cells[s])}" : "?" }
        lead = "#{race.leader} #{rps.call(race.leader)} req/s"
        out = slower(race, race.outcome == :winner ? race.losers.drop(1) : race.losers)
        case race.outcome
        when :winner
          closest = race.losers.first
          phrase = Stats::DecisionText.phrase(race.eliminated.fetch(closest), label: nil)
          "#{lead} fastest: #{closest} #{rps.call(closest)} #{phrase}#{out.empty? ? '' : "; #{out} too"}"
        when :tie
          group = race.versus.map { |s, e| "#{s} #{rps.call(s)} #{Stats::DecisionText.phrase(e, label: nil)}" }
          "#{lead} leads an equivalence group: #{group.join(', ')}#{out.empty? ? '' : "; #{out}"}"
        else
          undecided(race, lead, rps, out)
        end
      end

      # An open race: the leader and its closest contender (the highest
      # median after it) with that pair's interval; the other contenders
      # counted, every pair's interval being in the Decisions of --why.
      def undecided(race, lead, rps, out)
        rest = race.racing - [race.leader]
        closest = rest.max_by { |s| race.versus[s] ? race.versus[s].decision.ratio : 0 }
        entry = race.versus[closest]
        versus = entry ? Stats::DecisionText.phrase(entry, label: nil) : "(no look yet)"
        more = rest.size > 1 ? ", #{rest.size - 1} more racing" : ""
        rounds = "#{race.look || 0} #{race.look == 1 ? 'round' : 'rounds'}"
        "undecided after #{rounds}: #{lead} leads; #{closest} #{rps.call(closest)} #{versus}#{more}" \
          "#{out.empty? ? '' : "; #{out}"}"
      end

      # "thin, unicorn x2 slower" (the setups that left, closest first).
      def slower(_race, setups)
        setups.empty? ? "" : "#{setups.join(', ')} slower"
      end

      def mark(cell)
        QuietNotes.foreign_cell?(cell) ? QuietNotes::FLAG : ""
      end
    end
  end
end
