# frozen_string_literal: true

require_relative "../../error"
require_relative "../../load"

module Rackbench
  module Config
    module Rules
      # --rate needs an open-loop engine, and an open-loop engine needs
      # --rate. Rates with the default engine take the open-loop default.
      module Loop
        ORDER = 30 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        # Returns the engine it settles ({engine:}) or nil.
        def check(cfg)
          engine = cfg[:rate].any? && cfg[:engine] == Load.default_name ? Load.default_name("open") : cfg[:engine]
          open = Load.open_loop?(engine)
          return engine == cfg[:engine] ? nil : { engine: engine } if open == cfg[:rate].any?

          unless open
            why = Load.registration(engine).no_rate
            raise UsageError, "--engine #{engine} is closed-loop and takes --concurrency, not --rate#{": #{why}" if why}"
          end

          raise UsageError, "--engine #{engine} is open-loop: give --rate, e.g. --rate 50,100,200"
        end
      end
    end
  end
end
