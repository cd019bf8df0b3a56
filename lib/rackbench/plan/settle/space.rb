# frozen_string_literal: true

require_relative "../server_check"
require_relative "../../server"
require_relative "../../workload/app"

module Rackbench
  module Config
    module Settle
      # rackbench tune: the servers its space tries. Named (--servers): each
      # must run with the app, or all that cannot are refused in one line;
      # not named: the default list's that can run, those left out named in a
      # warning (ServerCheck.defaults).
      module Space
        ORDER = 30

        module_function

        def settle(cfg, world)
          space = cfg[:space] or return nil

          app = Workload::App.resolve(cfg[:app])
          if space.servers
            ServerCheck.requested!(space.servers, app)
            return nil
          end
          keys, warning = ServerCheck.defaults(Server.tune_defaults, app)
          world.warning(warning) if warning
          { space: space.with(servers: keys) }
        end
      end
    end
  end
end
