# frozen_string_literal: true

require_relative "jruby"
require_relative "../finding"

module Rackbench
  module Runtime
    # How `rackbench servers` and `rackbench doctor` show the JRuby that
    # setups "on jruby" use: its version, Java's, and the -java gem of each
    # server that runs on it (servers: their keys, Server.on_runtime).
    module JrubyStatus
      module_function

      def text(runtime, servers)
        why = runtime.problem
        return "not installed: #{why}" if why

        gems = servers.to_h { |key| [key, runtime.gem_version(key)] }
        missing = gems.key(nil)
        return "not installed: #{missing.capitalize} is missing from #{runtime.gem_home}: #{Jruby::INSTALL}" if missing

        "#{gems.map { |k, v| "#{k} #{v}" }.join(', ')} on JRuby #{runtime.version}, Java #{runtime.java_version} " \
          "(setups \"#{servers.first} x1:16 on jruby\")"
      end

      # `rackbench servers`: one line beside the MRI servers.
      def line(runtime, servers)
        format("%-10s %s", "jruby", text(runtime, servers))
      end

      # `rackbench doctor`: a warning, not a failure (only "on jruby" setups need it).
      def finding(runtime, servers)
        shown = text(runtime, servers)
        Finding.new(level: shown.start_with?("not installed") ? :warn : :ok, topic: "jruby", text: shown)
      end
    end
  end
end
