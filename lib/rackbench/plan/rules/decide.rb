# frozen_string_literal: true

require_relative "../../error"
require_relative "../../stats/decision_reach"
require_relative "../../stats/looks"
require_relative "../values"

module Rackbench
  module Config
    module Rules
      # --decide needs setups to decide between, and rounds to pair.
      module Decide
        ORDER = 50 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        RULE = "under --decide's stopping rule (a look after every round from round #{Stats::Looks::FIRST}, the 5% rate " \
               "spent over the looks up to --max-rounds, a round's spread taken as at least " \
               "#{format('%g', Stats::Decision::SD_FLOOR * 100)}%)".freeze

        def check(cfg)
          return unless cfg[:decide]

          raise UsageError, "--decide compares setups: --url measures one server; give --app and 2 or more --setup" if cfg[:url]

          reach(cfg)
          return unless cfg[:setups].size == 1 && Array(cfg[:refs]).size < 2 # run --ref: one setup per commit

          raise UsageError, "--decide compares setups: give 2 or more (-s \"#{cfg[:setups].first.label}\" -s ...), " \
                            "or use --repeat N for one setup's rounds"
        end

        # The design must be able to decide within the margin at some look
        # up to --max-rounds (Stats::DecisionReach: milliseconds); else the
        # smallest --max-rounds that can, or, past the largest, the margin.
        def reach(cfg)
          repeat = cfg[:repeat]
          max = cfg[:max_rounds]
          margin = cfg[:margin]
          return if repeat >= max || Stats::DecisionReach.decides?(repeat: repeat, margin: margin, max: max)

          limit = Values::MAX_REPEAT
          least = Stats::DecisionReach.smallest_max_rounds(repeat: repeat, margin: margin, from: max + 1, limit: limit)
          shown = format("%g", margin * 100)
          if least
            raise UsageError, "--max-rounds #{max} cannot reach a decision within --margin #{shown} #{RULE}: " \
                              "give --max-rounds #{least} or more"
          end

          floor = smallest_margin(repeat, limit)
          at_max = max < limit ? smallest_margin(repeat, max) : nil
          raise UsageError, "--margin #{shown} is too small: no --max-rounds from #{max} to #{limit} can reach a decision " \
                            "within it #{RULE}: give --margin #{floor} or more with --max-rounds #{limit}" \
                            "#{", or #{at_max} or more with --max-rounds #{max}" if at_max && at_max != floor}"
        end

        # The smallest --margin (as written: a percentage, two significant
        # figures, rounded up) at which the design at max can decide; nil
        # past 100%.
        def smallest_margin(repeat, max)
          pct = Stats::DecisionReach.smallest_margin(repeat: repeat, max: max) * 100
          return nil unless pct.finite? && pct < 100

          decimals = [1 - Math.log10(pct).floor, 0].max
          step = 10r**-decimals
          value = (pct.to_r / step).ceil * step
          value += step until Stats::DecisionReach.decides?(repeat: repeat, margin: Float(format("%g", value)) / 100.0, max: max)
          value >= 100 ? nil : format("%g", value)
        end
      end
    end
  end
end
