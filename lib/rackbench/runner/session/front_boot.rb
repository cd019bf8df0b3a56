# frozen_string_literal: true

require_relative "../../clock"
require_relative "phase"
require_relative "../../ports"
require_relative "../../server/front"

module Rackbench
  class Runner
    class Session
      # The proxy in front ("... behind nginx"): started on the session's
      # port (--port, else a free one) with the booted server as its
      # upstream, and its setups.jsonl line stored beside the server's.
      class FrontBoot < Phase
        # Yields the proxy before starting it (so the caller stops it
        # whatever happens next); returns it started.
        def call(upstream)
          kind = Server::Front.fetch(@setup.front)
          front = kind.new(upstream_port: upstream.port, port: @config[:port] || Ports.free, dir: @place.server_dir,
                           host: @place.bind, cpus: @config[:cpus]&.server, **(@ctx.tls ? { tls: @ctx.tls } : {}))
          yield front
          front.start
          @ctx.store.append_setup("setup" => @setup.label, "repetition" => @rep, "status" => "ok", "front" => @setup.front,
                                  "version" => kind.version, "port" => front.port,
                                  "config" => front.config, "at" => Clock.wall_iso8601)
          front
        end
      end
    end
  end
end
