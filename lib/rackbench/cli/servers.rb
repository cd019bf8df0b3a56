# frozen_string_literal: true

require_relative "command"
require_relative "../server"

module Rackbench
  module CLI
    # rackbench servers: which servers can run here, with versions.
    class Servers < Command
      HOW = {
        "passenger" => "apt-get install passenger (Debian's package), or run bin/setup"
      }.freeze

      def call(argv)
        parser = OptionParser.new("Usage: rackbench servers")
        parse!(parser, argv)
        Server.all.each do |adapter|
          version = adapter.version
          state = version ? version : "not installed: #{HOW.fetch(adapter.key, "add gem \"#{adapter.gem_name}\" and run bin/setup")}"
          @out.puts format("%-10s %s", adapter.key, state)
        end
        0
      end
    end
  end
end
