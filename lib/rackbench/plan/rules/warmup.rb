# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  module Config
    module Rules
      # --warmup steady needs windows that fit its cap; its tolerance is a share.
      module Warmup
        ORDER = 10 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          if cfg[:warmup_tolerance] >= 1
            raise UsageError, "--warmup-tolerance is a share of throughput below 1, e.g. 0.05 for 5% (got #{cfg[:warmup_tolerance]})"
          end
          return if cfg[:warmup_max] >= 2 * cfg[:warmup_window]

          raise UsageError, "--warmup-max (#{cfg[:warmup_max]} s) must hold two --warmup-window windows " \
                            "(#{cfg[:warmup_window]} s each) to compare; raise it"
        end
      end
    end
  end
end
