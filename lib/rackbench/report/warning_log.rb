# frozen_string_literal: true

require_relative "listener"
require_relative "../clock"

module Rackbench
  module Report
    # Keeps every warning of a run in its directory (warnings.jsonl: one line
    # each, {"at", "text"}), so a warning shown on the terminal during the
    # run (a failed warm-up, a server still busy, the load generator's CPU
    # share) is still there when the run is read later. Always in the run's
    # Fanout, --quiet or not.
    class WarningLog < Listener
      def initialize(store)
        super()
        @store = store
      end

      def warning(text)
        @store.append_warning("at" => Clock.wall_iso8601, "text" => text)
      end
    end
  end
end
