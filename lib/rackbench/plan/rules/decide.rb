# frozen_string_literal: true

require_relative "../../error"
require_relative "../../stats/decision"
require_relative "../../stats/looks"

module Rackbench
  module Config
    module Rules
      # --decide needs setups to decide between, and rounds to pair.
      module Decide
        module_function

        def check(cfg)
          return unless cfg[:decide]

          raise UsageError, "--decide compares setups: --url measures one server; give --app and 2 or more --setup" if cfg[:url]

          max = cfg[:max_rounds]
          least = Stats::Decision.smallest_max_rounds(repeat: cfg[:repeat], margin: cfg[:margin])
          if max < least && cfg[:repeat] < max
            raise UsageError, "--max-rounds #{max} cannot reach a decision under --decide's stopping rule (a look after every " \
                              "round from round #{Stats::Looks::FIRST}, the 5% rate spent over the looks up to --max-rounds): " \
                              "give --max-rounds #{least} or more"
          end
          return unless cfg[:setups].size == 1 && Array(cfg[:refs]).size < 2 # run --ref: one setup per commit

          raise UsageError, "--decide compares setups: give 2 or more (-s \"#{cfg[:setups].first.label}\" -s ...), " \
                            "or use --repeat N for one setup's rounds"
        end
      end
    end
  end
end
