# frozen_string_literal: true

require_relative "../../error"
require_relative "../../load"
require_relative "../../server"

module Rackbench
  module Config
    module Rules
      # An engine that speaks HTTP/2 in cleartext (Load.protocol "h2c": h2load)
      # needs setups whose server serves it (Server::Base.protocols) with
      # nothing in front (nginx here serves HTTP/1.1). A --url server is the
      # user's to know; h2load itself then says when it got no HTTP/2 answer.
      # With --tls it speaks h2 (offered by the server's ALPN) instead.
      module Protocol
        ORDER = 120 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          protocol = Load.protocol(cfg[:engine])
          return if protocol == "http/1.1" || cfg[:url]

          protocol = "h2" if cfg[:tls] && protocol == "h2c"
          cannot = cfg[:setups].reject { |s| s.front.nil? && Server::ADAPTERS[s.server]&.protocols&.include?(protocol) }
          return if cannot.empty?

          able = Server::ADAPTERS.values.select { |klass| klass.protocols.include?(protocol) }
          how = protocol == "h2" ? "HTTP/2 over TLS (h2, negotiated by ALPN)" : "HTTP/2 in cleartext (#{protocol}, prior knowledge)"
          raise UsageError, "--engine #{cfg[:engine]} speaks #{how}, which " \
                            "#{cannot.map(&:label).join(' and ')} cannot serve: only #{able.map(&:key).join(', ')} " \
                            "serve#{'s' if able.size == 1} #{protocol} here#{' with nothing in front' if cannot.any?(&:front)}; " \
                            "give #{able.map { |k| "-s \"#{k.default_label(2) || k.footprint_label}\"" }.join(' or ')}, " \
                            "or use --engine wrk"
        end
      end
    end
  end
end
