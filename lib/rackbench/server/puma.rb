# frozen_string_literal: true

require_relative "base"

module Rackbench
  module Server
    # Puma: "puma xW:T". W > 1 runs cluster mode (preloaded unless
    # "nopreload"); W = 1 runs single mode (one process), as Puma itself
    # recommends over a one-worker cluster. Graceful stop: TERM.
    class Puma < Base
      KEY = "puma"

      def argv(setup, app:, port:, dir:)
        cmd = [*launch(setup), "--no-config", "-e", "production", "-b", "tcp://127.0.0.1:#{port}",
               "-t", "#{setup.threads}:#{setup.threads}", "--pidfile", File.join(dir, "puma.pid"),
               "--tag", "rackbench"]
        cmd += ["-w", setup.workers.to_s] unless single_process?(setup)
        cmd << "--preload" if setup.preload && !single_process?(setup)
        cmd << app
      end

      def single_process?(setup)
        setup.workers == 1
      end

      def expected_workers(setup)
        single_process?(setup) ? 0 : setup.workers
      end
    end
  end
end
