# frozen_string_literal: true

require_relative "base"

module Rackbench
  module Server
    # Thin: one EventMachine process ("thin"); requests run one at a time on
    # its reactor thread. Graceful stop: QUIT or TERM (INT stops at once);
    # Thin handles signals on a one-second timer, so a stop takes ~1 s.
    class Thin < Base
      KEY = "thin"

      def graceful_signal
        "QUIT"
      end

      def argv(setup, app:, port:, dir:, host: "127.0.0.1")
        [*launch(setup), "start", "-e", "production", "-a", host, "-p", port.to_s, "-R", app,
         "--pid", File.join(dir, "thin.pid"), "--tag", "rackbench"]
      end

      def single_process?(_setup)
        true
      end

      def expected_workers(_setup)
        0
      end
    end
  end
end
