# frozen_string_literal: true

require_relative "../server_check"

module Rackbench
  module Config
    module Settle
      # No --setup (and no --url, and not a tune): the default plan's servers that can run
      # with the app, each in its default setup for this machine's cores
      # (Config.default_setups); those left out are named in a warning,
      # never dropped in silence (ServerCheck.planned).
      module Servers
        ORDER = 20

        module_function

        def settle(cfg, world)
          return nil unless cfg[:url].nil? && cfg[:setups].empty? && cfg[:space].nil? # tune boots its space's setups

          keys, warning = ServerCheck.planned(cfg, Config.default_servers)
          world.warning(warning) if warning
          { setups: Config.default_setups(installed: keys) }
        end
      end
    end
  end
end
