# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  module Config
    module Rules
      # The probe runs inside a server rackbench boots: --url's server is the user's own.
      module Probe
        ORDER = 100 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          return unless cfg[:probe] == true && cfg[:url]

          raise UsageError, "--probe runs inside a server rackbench boots; the server at --url is your own: drop --probe " \
                            "(or put the probe's middleware in your app yourself)"
        end
      end
    end
  end
end
