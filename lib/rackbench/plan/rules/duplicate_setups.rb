# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  module Config
    module Rules
      # The same setup twice would be folded into one cell as if it were a
      # repetition: refused (to measure one setup under two names, an A/A
      # test, tag them: "puma x2:5 #a" and "puma x2:5 #b").
      module DuplicateSetups
        ORDER = 40 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          twice = cfg[:setups].map(&:label).tally.find { |_, n| n > 1 }&.first
          return unless twice

          raise UsageError, "setup #{twice.inspect} is given twice; give it once and use --repeat N for rounds " \
                            "(or tag each to measure it under two names: \"#{twice} #a\" and \"#{twice} #b\")"
        end
      end
    end
  end
end
