# frozen_string_literal: true

require_relative "command"
require_relative "../server"
require_relative "../server/front"
require_relative "../load"
require_relative "../runtime/jruby_status"

module Rackbench
  module CLI
    # rackbench servers: which servers can run here, with versions, the
    # proxies a setup can put in front, then the load programs (and the
    # engines that run each).
    class ServersCommand < Command
      def call(argv)
        parser = OptionParser.new("Usage: rackbench servers")
        return 0 unless parse!(parser, argv)
        Server.all.each do |adapter|
          version = adapter.version
          state = version ? "#{version}#{protocols(adapter)}" : "not installed: #{adapter.install_hint}"
          @out.puts format("%-10s %s", adapter.key, state)
        end
        @out.puts Runtime::JrubyStatus.line(Runtime::Jruby.default(@env), Server.on_runtime("jruby"))
        Server::Front::ALL.each do |name, front|
          state = front.available? ? "#{front.version} (in front: \"... behind #{name}\")" : "not installed: #{front::NOT_FOUND}"
          @out.puts format("%-10s %s", name, state)
        end
        Load.programs.each { |program, names| @out.puts format("%-10s %s", program, engine_state(names)) }
        0
      end

      private

      # " (also serves h2c: --engine h2load; h2 with --tls)" for a server
      # that serves more than HTTP/1.1 (h2: HTTP/2 offered by ALPN over TLS,
      # what an h2c engine speaks with --tls).
      def protocols(adapter)
        more = adapter.class.protocols - %w[http/1.1]
        cleartext = more - %w[h2]
        return "" if cleartext.empty?

        engines = Load.names.select { |n| cleartext.include?(Load.protocol(n)) }
        " (also serves #{cleartext.join(', ')}: --engine #{engines.join(', ')}#{'; h2 with --tls' if more.include?('h2')})"
      end

      def engine_state(names)
        engine = Load.engine(names.first)
        return "#{engine.version} (load engine: --engine #{names.join(', ')})" if engine.available?

        "not installed: #{engine.class.const_defined?(:NOT_FOUND) ? engine.class::NOT_FOUND : 'not on PATH'}"
      end
    end
  end
end
