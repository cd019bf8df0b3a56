# frozen_string_literal: true

module Rackbench
  module Workload
    # The built-in benchmark app (see arena/config.ru for its endpoints).
    module Arena
      CONFIG_RU = File.expand_path("arena/config.ru", __dir__)
      READY_PATH = "/health"
      # Endpoints that keep a core busy; the runner cools down after their levels.
      CPU_HEAVY = %r{\A/(fibonacci|template-render|pi|pause-and-render|network-io-and-render|random)\b}.freeze
      UPSTREAM = %r{\A/network-io}.freeze

      module_function

      def cpu_heavy?(endpoint)
        CPU_HEAVY.match?(endpoint)
      end

      def needs_upstream?(endpoints)
        endpoints.any? { |e| UPSTREAM.match?(e) }
      end
    end
  end
end
