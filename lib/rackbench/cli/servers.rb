# frozen_string_literal: true

require_relative "command"
require_relative "../server"
require_relative "../runtime/jruby_status"

module Rackbench
  module CLI
    # rackbench servers: which servers can run here, with versions.
    class ServersCommand < Command
      def call(argv)
        parser = OptionParser.new("Usage: rackbench servers")
        return 0 unless parse!(parser, argv)
        Server.all.each do |adapter|
          version = adapter.version
          state = version || "not installed: #{adapter.install_hint}"
          @out.puts format("%-10s %s", adapter.key, state)
        end
        @out.puts Runtime::JrubyStatus.line(Runtime::Jruby.default(@env))
        0
      end
    end
  end
end
