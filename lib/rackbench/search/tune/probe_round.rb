# frozen_string_literal: true

require_relative "../../units"
require_relative "lab"
require_relative "racing"
require_relative "reserve"
require_relative "round_log"

module Rackbench
  module Search
    class Tune
      # Round 1 of Tune: a cheap closed-loop probe of every entry not probed
      # yet (Lab#probe), those nearest the prediction first (Prediction),
      # then, as without one, the largest capacity first; an entry whose
      # measured footprint is over the memory budget is dropped, and the
      # better half kept by racing's rule (Racing.halve: ties within the
      # noise band kept). Takes the shared State; the entries get their
      # probes and drops; returns the round's decisions.
      class ProbeRound
        # prediction: round 0's (nil: the plain order, --no-predict).
        def initialize(state, entries:, band:, budget_mb:, prediction:)
          @s = state
          @entries = entries
          @band = band
          @budget_mb = budget_mb
          @prediction = prediction
          @log = RoundLog.new(state, 1, entries: entries, band: band)
        end

        def call
          todo = @entries.select { |e| e.probes.empty? }
                         .sort_by { |e| [@prediction ? @prediction.distance(e.setup) : 0, -e.setup.capacity, -e.setup.workers] }
          @s.lab.expect(todo.size)
          todo.each_with_index do |entry, done|
            unless probe(entry)
              # Out of time: the rest in one line, not one countdown line each with no probe between.
              rest = todo[(done + 1)..]
              rest.each { |e| e.drop!(1, NOT_PROBED) }
              @log.progress("the time budget ran out: #{RoundLog.setups(rest.size + 1)} not probed", @log.leader_by(:probe_rps))
              break
            end
            @log.progress("#{RoundLog.setups(todo.size - done - 1)} left to probe", @log.leader_by(:probe_rps))
          end
          over_budget!
          decisions = Racing.halve(alive.select { |e| e.probes.any? }, band: @band)
          decisions.each { |d| d.entry.drop!(1, d.reason, test: d.test) unless d.keep }
          decisions += @entries.select { |e| e.dropped_in == 1 && decisions.none? { |d| d.entry.equal?(e) } }
                               .map { |e| Racing::Decision.new(entry: e, keep: false, reason: e.dropped) }
          @log.decisions(decisions, method_text)
          @log.progress("kept #{alive.size} of #{@entries.size}", @log.leader_by(:probe_rps), done: true)
          decisions
        end

        private

        def alive
          @entries.select(&:alive?)
        end

        def method_text
          "closed-loop probe: #{Lab::PROBE_SECONDS}-#{Lab::PROBE_MAX_SECONDS} s at c = 2 x workers x threads; keep the top half, " \
            "ties within the noise band kept (#{Racing.pct(@band.reference)} at the footprint probes' count of responses, " \
            "wider for probes that counted fewer)"
        end

        NOT_PROBED = "not probed: the time budget ran out"

        # One probe, unless the time budget has run out (before or during
        # it); false when it had (no later probe fits either).
        def probe(entry)
          outcome = @s.deadline.allows?(@s.lab.probe_cost + Reserve.after(1, @s.lab)) ? @s.lab.probe(entry.setup) : nil
          if outcome
            entry.add(outcome.records, into: entry.probes)
            entry.drop!(1, outcome.failure) if outcome.failure
          end
          return true unless outcome.nil? || outcome.stopped

          @s.stop!("time budget")
          entry.drop!(1, NOT_PROBED)
          false
        end

        def over_budget!
          alive.each do |e|
            mb = e.footprint_mb
            e.drop!(1, "measured footprint #{Units.mib(mb)} is over the #{Units.mib(@budget_mb)} budget") if mb && mb > @budget_mb
          end
        end
      end
    end
  end
end
