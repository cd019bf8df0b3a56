# frozen_string_literal: true

require_relative "pause"
require_relative "pi"
require_relative "server_info"

module Rackbench
  module Workload
    module Arena
      # GET /random — the App Server Arena seed's mixed workload: each request
      # draws Random.rand once and becomes /server (50%), /pause/1 (20%) or
      # /pi/5000 (30%). The response names the kind in x-arena-mix, so a
      # client can tell the three apart without parsing bodies.
      module RandomMix
        PAUSE = "1"
        PI_DIGITS = "5000"
        # Cumulative upper bounds of the draw in [0, 1).
        KINDS = [[0.5, "server"], [0.7, "pause"], [1.0, "pi"]].freeze

        module_function

        def call(env)
          kind = pick(Random.rand)
          status, headers, body = respond(kind, env)
          headers["x-arena-mix"] = kind
          [status, headers, body]
        end

        def pick(draw)
          KINDS.find { |bound, _| draw < bound }&.last || KINDS.last.last
        end

        def respond(kind, env)
          case kind
          when "server" then ServerInfo.call(env)
          when "pause" then Pause.call(env, PAUSE)
          else Pi.call(env, PI_DIGITS)
          end
        end
      end
    end
  end
end
