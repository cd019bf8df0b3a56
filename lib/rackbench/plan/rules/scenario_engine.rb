# frozen_string_literal: true

require_relative "../../error"
require_relative "../../load"
require_relative "../scenario"

module Rackbench
  module Config
    module Rules
      # --scenario: a mix that parses, instead of --endpoint, loaded by an
      # engine that loads mixes.
      module ScenarioEngine
        ORDER = 80 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          return if cfg[:scenario].nil?

          Scenario.parse(cfg[:scenario])
          raise UsageError, "give --endpoint or --scenario, not both" if cfg[:endpoints].any?
          return if Load.scenario?(cfg[:engine])

          raise UsageError, "--scenario needs --engine #{Load.names.select { |n| Load.scenario?(n) }.join(' or ')} " \
                            "(#{cfg[:engine]} loads one URL)"
        end
      end
    end
  end
end
