# frozen_string_literal: true

require_relative "../../error"
require_relative "../values"

module Rackbench
  module Config
    module Rules
      # --per-boot auto: two pilot rounds of 2 takes, then the takes Kalibera
      # & Jones's rule chooses (Plan#takes_for), which needs a round after the
      # pilots.
      module PerBoot
        ORDER = 20 # Config::RULES runs the rules by ORDER (plan/config.rb)
        PILOT_ROUNDS = 2
        PILOT_TAKES = 2

        module_function

        def check(cfg)
          return unless cfg[:per_boot] == Values::AUTO
          return if cfg[:decide] == true || cfg[:repeat] > PILOT_ROUNDS

          raise UsageError, "--per-boot auto measures #{PILOT_ROUNDS} rounds of #{PILOT_TAKES} takes per boot, then chooses the takes " \
                            "for the rounds after them: give -r #{PILOT_ROUNDS + 1} or more (or --decide)"
        end
      end
    end
  end
end
