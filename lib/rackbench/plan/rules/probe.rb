# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  module Config
    module Rules
      # The probe runs inside a server rackbench boots: --url's server is the
      # user's own. Neither --probe nor --no-probe given (nil): the rule
      # settles DEFAULT, decided by the probe's measured overhead
      # (bench/probe_overhead.rb; the README and docs/running.md give the
      # figure and the reason). The built-in arena has its probe either way.
      module Probe
        ORDER = 100 # Config::RULES runs the rules by ORDER (plan/config.rb)
        DEFAULT = false

        module_function

        def check(cfg)
          return { probe: DEFAULT } if cfg[:probe].nil?
          return nil unless cfg[:probe] == true && cfg[:url]

          raise UsageError, "--probe runs inside a server rackbench boots; the server at --url is your own: drop --probe " \
                            "(or put the probe's middleware in your app yourself)"
        end
      end
    end
  end
end
