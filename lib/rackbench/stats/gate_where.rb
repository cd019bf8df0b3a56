# frozen_string_literal: true

require_relative "attribution"
require_relative "attribution_text"

module Rackbench
  module Stats
    # run --ref ... --fail-if-slower P --profile: where a gate cell's time
    # went, in the gate's sentence (Stats::GateText's where:), from the
    # run's attributions (Stats::Attribution, its words AttributionText's):
    #
    #   +0.41 ms per request in Fibonacci.fib (fibonacci.rb) (+0.30 to +0.52)
    #
    # the largest changes first, SHOWN at most, or "no method's change is
    # beyond noise". Which cells say it:
    #
    #   slower     always: the answer's attribution of the pair (a pair the
    #              run decided at --margin), else one made for the gate's own
    #              decision (a pair the answer did not attribute: not
    #              neighbours in its ranking, or not decided at --margin);
    #   undecided  leaning slower (B/A below 1) and only when the answer
    #              attributed the pair: the gate says no more than the report;
    #   others     nothing (a passed cell, a missing one).
    class GateWhere
      SHOWN = 3
      NOTHING = "no method's change is beyond noise"

      # attributions: {[endpoint, level, a, b] => Attribution} (Report::Dataset#attributions);
      # times: -> { FrameTimes.of(profiles) }, read only for a slower cell the answer lacks.
      def initialize(gate, attributions:, times:)
        @slower = gate.slower
        @undecided = gate.undecided
        @attributions = attributions
        @times = times
      end

      # The words for one Gate::Cell, nil when it has none.
      def text(cell)
        found = attribution(cell) or return nil
        named = found.named
        return NOTHING if named.empty?

        parts = named.first(SHOWN).map { |c| AttributionText.frame(c) }
        more = named.size - SHOWN
        parts.join(", ") + (more.positive? ? ", and #{more} more method(s) (JSON: attributions)" : "")
      end

      private

      def attribution(cell)
        key = [cell.endpoint, cell.level, cell.a, cell.b]
        return @attributions[key] || made(cell, key) if @slower.include?(cell)

        d = cell.decision
        d && d.ratio < 1 && @undecided.include?(cell) ? @attributions[key] : nil
      end

      def made(cell, key)
        (@made ||= {}).fetch(key) { @made[key] = cell.entry && Attribution.for(cell.entry, @times.call) }
      end
    end
  end
end
