# frozen_string_literal: true

module Rackbench
  module Suites
    module Findings
      # A decision seen from the other side: B against A read as A against B
      # (the ratio, its interval and faster/slower turned round).
      Flipped = Struct.new(:decision) do
        def outcome
          { higher: :lower, lower: :higher, direction_higher: :direction_lower, direction_lower: :direction_higher }
            .fetch(decision.outcome, decision.outcome)
        end

        def ratio = 1 / decision.ratio
        def ci_low = 1 / decision.ci_high
        def ci_high = 1 / decision.ci_low
        def low_pct = (ci_low - 1) * 100
        def high_pct = (ci_high - 1) * 100
        def method = decision.method
        def rounds = decision.rounds
        def rounds_needed = decision.rounds_needed
        def budget = decision.budget
        def out_of_looks? = decision.out_of_looks?
        def margin = decision.margin
      end
    end
  end
end
