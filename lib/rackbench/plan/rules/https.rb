# frozen_string_literal: true

require_relative "../../error"
require_relative "../../server"
require_relative "../../server/front"

module Rackbench
  module Config
    module Rules
      # --tls: every setup must serve HTTPS with the run's certificate: its
      # server (Server::Base.no_tls, on its runtime) or nginx in front (which
      # terminates TLS for any server). Those that cannot are refused together,
      # each with its reason. The server at --url is the user's own: its URL
      # says https:// itself.
      module Https
        ORDER = 130 # Config::RULES runs the rules by ORDER (plan/config.rb)
        module_function

        def check(cfg)
          return unless cfg[:tls]
          if cfg[:url]
            raise UsageError, "--tls makes the servers rackbench boots serve HTTPS; the server at --url is your own: " \
                              "drop --tls and give its https:// URL"
          end
          refused = cfg[:setups].filter_map do |s|
            why = no_tls(s) or next
            front = Server::Front.tls_names.first
            fronted = "#{s.label.sub(/ behind \w+\z/, '')} behind #{front}"
            "#{s.label}: #{why}; #{front} in front serves TLS for it: -s #{fronted.inspect}" unless s.runtime == "jruby"
          end
          refused += cfg[:setups].select { |s| s.runtime == "jruby" && no_tls(s) }.map { |s| "#{s.label}: #{no_tls(s)}" }
          raise UsageError, "--tls: #{refused.join('; ')}" if refused.any?
        end

        # Why setup cannot serve --tls, nil when it can.
        def no_tls(setup)
          return Server::Front.fetch(setup.front).no_tls if setup.front

          klass = Server::ADAPTERS[setup.server] or return nil
          (setup.runtime == "jruby" ? klass.runtime_adapters.fetch("jruby", klass) : klass).no_tls
        end
      end
    end
  end
end
