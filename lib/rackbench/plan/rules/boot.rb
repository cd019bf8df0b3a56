# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  module Config
    module Rules
      # --boot together boots several servers of rackbench's own at once,
      # each on a port of its own.
      module Boot
        ORDER = 150 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          return if cfg[:boot] == "apart"
          raise UsageError, "--boot together boots rackbench's servers side by side; the server at --url is your own: drop --boot" if cfg[:url]
          raise UsageError, "--boot together boots a round's servers side by side, each on a port of its own: drop --port" if cfg[:port]
          return unless cfg[:setups].size == 1

          raise UsageError, "--boot together boots a round's setups side by side: give 2 or more (-s \"#{cfg[:setups].first.label}\" -s ...)"
        end
      end
    end
  end
end
