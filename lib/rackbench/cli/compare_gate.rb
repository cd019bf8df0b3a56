# frozen_string_literal: true

require_relative "../stats/compare"
require_relative "../stats/decision"
require_relative "../stats/gate"
require_relative "../stats/gate_text"

module Rackbench
  module CLI
    # `compare --fail-if-slower P`: a CI gate that passes, fails or says it
    # cannot tell, never passing on noise. req/s alone is decided again at
    # the gate's margin P (P = 0: the comparison's margin), unpaired, the
    # gate's cells one family at 5% (Stats::Compare#gate), each cell sorted
    # by Stats::Gate's rule, which gives the exit status (1 slower or
    # missing: RUN_B lacks cells of RUN_A, 3 undecided, 0 passed) and, by
    # Stats::GateText, the sentence. What more would decide is this
    # command's: repetitions in each run.
    class CompareGate
      # percent: the gate's P (>= 0, < 100); margin: the comparison's (a share).
      def initialize(compare, percent:, margin:)
        @compare = compare
        @percent = percent
        @gate = compare.gate(Stats::Gate.share(percent, margin))
      end

      # [exit status, the line for stderr].
      def verdict(path_a, path_b)
        text = Stats::GateText.new(@gate, percent: @percent, to_decide: "add repetitions (#{more}) or gate on a larger slowdown",
                                          cause: "re-run, or compare without the gate", unit: "repetitions", a: path_a, b: path_b)
        [@gate.status, text.sentence]
      end

      private

      # The most any undecided cell would likely take, in each run.
      def more
        extra = @gate.undecided.filter_map do |cell|
          d = cell.decision
          d&.rounds_needed && d.rounds_needed - d.rounds
        end.max
        return "run -r 3 or more" if extra.nil?
        return "even #{Stats::Decision::MAX_ROUNDS} more might not decide it" if extra >= Stats::Decision::MAX_ROUNDS

        "about #{[extra, 1].max} more in each run, -r"
      end
    end
  end
end
