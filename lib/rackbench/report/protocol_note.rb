# frozen_string_literal: true

require_relative "../server/front"

module Rackbench
  module Report
    # What the trials were served over, when it is not plain HTTP/1.1: the
    # TLS the verification's handshake agreed (--tls; the trial's "tls") and
    # the protocol the engine spoke (h2load's "h2c"). One line, for the
    # terminal table, Markdown and HTML alike; nil for plain HTTP/1.1.
    module ProtocolNote
      module_function

      def line(trials)
        tls = trials.filter_map { |t| t["tls"] }.uniq
        spoken = trials.filter_map { |t| t["protocol"] }.uniq
        return nil if tls.empty? && (spoken - ["http/1.1"]).empty?

        return "Served over #{spoken.join(' and ')} in cleartext (prior knowledge, no TLS)." if tls.empty?

        agreed = tls.map { |t| agreed(t) }.uniq.join("; ")
        whose = tls.all? { |t| t["certificate"] == "server" } ? "the server's own certificate (not checked)" : "a certificate made for this run"
        front = trials.filter_map { |t| t["setup"].to_s[/ behind (\S+)\z/, 1] }.find { |f| Server::Front.tls_names.include?(f) }
        behind = front ? "; behind #{front}, #{front} ends TLS and the server gets plain HTTP" : ""
        "Served over HTTPS (#{spoken.join(', ')} over #{agreed}) with #{whose}#{behind}."
      end

      # What the load engine agreed (h2load says), or what the verification's
      # handshake did (wrk does not say): the cipher then is not the load's.
      def agreed(tls)
        return [tls["version"], tls["cipher"]].compact.join(" ") if tls["from"] == "load engine"

        "#{tls['version']}, as the verification's handshake agreed"
      end
    end
  end
end
