# frozen_string_literal: true

require_relative "response"

module Rackbench
  module Workload
    module Arena
      # The cheapest endpoints: /hello measures a server's per-request
      # overhead, /health is what rackbench polls for readiness and under load.
      module Hello
        BODY = "Hello, world!\n"

        def self.call(_env)
          Response.text(BODY)
        end
      end

      module Health
        BODY = "ok\n"

        def self.call(_env)
          Response.text(BODY)
        end
      end
    end
  end
end
