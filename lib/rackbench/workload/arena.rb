# frozen_string_literal: true

module Rackbench
  module Workload
    # The built-in apps live outside lib/, in the gem's apps/ directory:
    # real Rack (and Rails) apps that servers load, not rackbench's code.
    APPS_DIR = File.expand_path("../../../apps", __dir__)

    # The built-in benchmark app (see apps/arena/config.ru for its endpoints).
    module Arena
      CONFIG_RU = File.join(APPS_DIR, "arena", "config.ru")
      READY_PATH = "/health"
      # The directory the arena's in-process probe writes to (apps/arena/probe.rb
      # reads the same variable): requests and GC per worker, never set for a user's app.
      PROBE_DIR_VAR = "RACKBENCH_PROBE_DIR"
      # Endpoints that keep a core busy; the runner cools down after their levels.
      CPU_HEAVY = %r{\A/(fibonacci|template-render|pi|pause-and-render|network-io-and-render|random)\b}.freeze
      UPSTREAM = %r{\A/network-io}.freeze
      # The endpoints the arena serves, as the README writes them: its
      # router's names (arena/app.rb ROUTES; a test keeps the two in step),
      # ":param" for the one path segment a route takes. Checked before any
      # server boots (Config), so a typo is refused with this list.
      CATALOGUE = %w[/hello /health /fibonacci/:n /template-render /pause/:seconds /pause-and-render/:seconds
                     /network-io /network-io-and-render /pi/:digits /server /random].freeze

      module_function

      def cpu_heavy?(endpoint)
        CPU_HEAVY.match?(endpoint)
      end

      # Whether the arena routes PATH (a query string is allowed; a route's
      # parameter is checked by the endpoint itself, which answers 400).
      def serves?(path)
        name, param = path.to_s.split("?", 2).first.delete_prefix("/").split("/", 2)
        route = CATALOGUE.find { |e| e.split("/")[1] == name }
        !route.nil? && route.count("/") == (param.nil? ? 1 : 2) && param != ""
      end

      def needs_upstream?(endpoints)
        endpoints.any? { |e| UPSTREAM.match?(e) }
      end
    end
  end
end
