# frozen_string_literal: true

require_relative "../../error"
require_relative "../../units"

module Rackbench
  module Config
    module Rules
      # --url as users write it: http://host:port, http://host:port/ or
      # http://host:port/path?q=1 (Units.url). The base is what it settles
      # as url; a path (or query) becomes the one endpoint; with neither, the
      # endpoint is "/". The server is the user's: no setups.
      module Url
        ORDER = 90 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        # Returns {url:, endpoints:} settled, or nil without --url.
        def check(cfg)
          return nil if cfg[:url].nil?

          base, target = Units.url(cfg[:url])
          unless cfg[:setups].empty?
            raise UsageError, "--url benchmarks a server that is already running; drop --setup (got #{cfg[:setups].map(&:label).join(', ')})"
          end

          named = cfg[:endpoints].any? || cfg[:scenario]
          if target && named
            raise UsageError, "--url #{base}#{target} already names the endpoint #{target}; give the base URL #{base} " \
                              "with --endpoint/--scenario, or drop them"
          end
          { url: base, endpoints: named ? cfg[:endpoints] : [target || "/"] }
        end
      end
    end
  end
end
