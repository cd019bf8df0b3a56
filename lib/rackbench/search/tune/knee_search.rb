# frozen_string_literal: true

module Rackbench
  module Search
    class Tune
      # One entry's knee searched as round 2 does (Lab#knee: at most LEVELS
      # open-loop levels from its probed throughput), its levels logged:
      # for round 2 and for a step past the space's edges (EdgeRound). Takes
      # the shared State; the entry gets the records, the knee, and its
      # drop when the search failed.
      class KneeSearch
        LEVELS = 5

        def initialize(state)
          @s = state
        end

        def call(entry)
          @s.lab.expect(LEVELS)
          outcome = @s.lab.knee(entry.setup, guess: entry.probe_rps, expected_latency: entry.expected_latency(@s.slo),
                                             max_levels: LEVELS)
          entry.add(outcome.records)
          entry.knee = outcome.knee
          @s.stop!("time budget") if outcome.stopped
          entry.drop!(2, outcome.failure) if outcome.failure
          outcome.knee&.fetch("levels", [])&.each do |level|
            @s.journal.log(level.merge("type" => "level", "round" => 2, "setup" => entry.label))
          end
        end
      end
    end
  end
end
