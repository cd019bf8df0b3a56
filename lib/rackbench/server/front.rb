# frozen_string_literal: true

require_relative "front/nginx"
require_relative "front/thruster"

module Rackbench
  module Server
    # The proxies a setup can put in front of its server ("... behind
    # nginx", "... behind thruster"). Each answers the same few calls:
    # .available?, .version, NOT_FOUND (the line when it is missing), .no_tls
    # (why it cannot serve --tls; nil: it can, and new takes tls:), and
    # new(upstream_port:, port:, dir:, host:, cpus:) with start, stop,
    # alive?, processes (sampled as "proxy"), port, url, config (stored
    # with the boot) and child.
    module Front
      ALL = { "nginx" => Nginx, "thruster" => Thruster }.freeze

      module_function

      def names
        ALL.keys
      end

      def fetch(name)
        ALL.fetch(name)
      end

      # The proxies that end TLS for the server behind them (no_tls nil).
      def tls_names
        ALL.select { |_, klass| klass.no_tls.nil? }.keys
      end
    end
  end
end
