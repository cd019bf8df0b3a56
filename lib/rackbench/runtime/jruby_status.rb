# frozen_string_literal: true

require_relative "jruby"
require_relative "../finding"

module Rackbench
  module Runtime
    # How `rackbench servers` and `rackbench doctor` show the JRuby that
    # setups "on jruby" use: its version, Java's, and Puma's -java gem.
    module JrubyStatus
      module_function

      def text(runtime)
        why = runtime.problem
        return "not installed: #{why}" if why

        puma = runtime.gem_version("puma")
        return "not installed: Puma is missing from #{runtime.gem_home}: #{Jruby::INSTALL}" unless puma

        "puma #{puma} on JRuby #{runtime.version}, Java #{runtime.java_version} (setups \"puma x1:16 on jruby\")"
      end

      # `rackbench servers`: one line beside the MRI servers.
      def line(runtime)
        format("%-10s %s", "jruby", text(runtime))
      end

      # `rackbench doctor`: a warning, not a failure (only "on jruby" setups need it).
      def finding(runtime)
        shown = text(runtime)
        Finding.new(level: shown.start_with?("not installed") ? :warn : :ok, topic: "jruby", text: shown)
      end
    end
  end
end
