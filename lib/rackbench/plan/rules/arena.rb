# frozen_string_literal: true

require_relative "../../error"
require_relative "../scenario"
require_relative "../../workload/arena"

module Rackbench
  module Config
    module Rules
      # The built-in arena app serves a fixed catalogue: any other path is
      # refused here, before a server boots.
      module Arena
        ORDER = 160 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          return unless cfg[:url].nil? && [nil, "arena"].include?(cfg[:app])

          paths = cfg[:endpoints] + (cfg[:scenario] ? Scenario.parse(cfg[:scenario]).paths : []) + [cfg[:health_path]].compact
          bad = paths.find { |path| !Workload::Arena.serves?(path) }
          return if bad.nil?

          raise UsageError, "the built-in arena app does not serve #{bad}; its endpoints: " \
                            "#{Workload::Arena::CATALOGUE.join(', ')} (your own app: --app PATH)"
        end
      end
    end
  end
end
