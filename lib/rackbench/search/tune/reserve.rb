# frozen_string_literal: true

require_relative "confirm_round"
require_relative "knee_search"

module Rackbench
  module Search
    class Tune
      # The seconds a round keeps back for the rounds after it: two
      # finalists' paired rounds at the planned window (round 3), and after
      # round 1 one knee search too (round 2).
      module Reserve
        module_function

        # after: the round that asks (1 or 2); lab: where tune measures (its costs).
        def after(round, lab)
          confirm = ConfirmRound.cost(lab, 2, lab.window(ConfirmRound::PLANNED_RUN))
          round == 1 ? confirm + lab.knee_cost(KneeSearch::LEVELS) : confirm
        end
      end
    end
  end
end
