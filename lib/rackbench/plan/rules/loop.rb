# frozen_string_literal: true

require_relative "../../error"
require_relative "../../load"

module Rackbench
  module Config
    module Rules
      # --rate needs an open-loop engine, and an open-loop engine needs
      # --rate. Rates with the default engine take the open-loop default.
      module Loop
        module_function

        def check(cfg)
          cfg[:engine] = Load.default_name("open") if cfg[:rate].any? && cfg[:engine] == Config::DEFAULTS[:engine]
          open = Load.open_loop?(cfg[:engine])
          return if open == cfg[:rate].any?

          unless open
            why = Load.registration(cfg[:engine]).no_rate
            raise UsageError, "--engine #{cfg[:engine]} is closed-loop and takes --concurrency, not --rate#{": #{why}" if why}"
          end

          raise UsageError, "--engine #{cfg[:engine]} is open-loop: give --rate, e.g. --rate 50,100,200"
        end
      end
    end
  end
end
