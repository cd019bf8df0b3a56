# frozen_string_literal: true

require_relative "../../error"
require_relative "../../units"

module Rackbench
  module Config
    module Rules
      # --url as users write it: http://host:port, http://host:port/ or
      # http://host:port/path?q=1 (Units.url). The base is kept in cfg[:url];
      # a path (or query) becomes the one endpoint; with neither, the
      # endpoint is "/". The server is the user's: no setups.
      module Url
        module_function

        def check(cfg)
          return if cfg[:url].nil?

          base, target = Units.url(cfg[:url])
          unless cfg[:setups].empty?
            raise UsageError, "--url benchmarks a server that is already running; drop --setup (got #{cfg[:setups].map(&:label).join(', ')})"
          end

          cfg[:url] = base
          named = cfg[:endpoints].any? || cfg[:scenario]
          if target && named
            raise UsageError, "--url #{base}#{target} already names the endpoint #{target}; give the base URL #{base} " \
                              "with --endpoint/--scenario, or drop them"
          end
          cfg[:endpoints] = [target || "/"] unless named
        end
      end
    end
  end
end
