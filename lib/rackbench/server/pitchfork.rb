# frozen_string_literal: true

require_relative "unicorn"
require_relative "../system/process_tree"

module Rackbench
  module Server
    # Pitchfork (Shopify's Unicorn fork): "pitchfork xN", N single-threaded
    # worker processes, configured like Unicorn with a generated file. Its
    # monitor loads no app: a "mold" process loads it once, binds the port and
    # forks the workers, which Linux reparents to the monitor (child
    # subreaper); each is titled "pitchfork (gen:G) worker[I] - ...". So the
    # app is always loaded once ("nopreload" changes nothing), and reforking
    # (refork_after) stays off, Pitchfork's default, so a run measures the
    # same generation throughout. No keep-alive, as Unicorn. Graceful stop:
    # QUIT (or TERM; INT stops at once), sent to the monitor (docs/SIGNALS.md).
    class Pitchfork < Unicorn
      KEY = "pitchfork"
      WORKER_TITLE = /\bworker\[\d+\]/.freeze
      register order: 6

      # One single-threaded worker per core, as Unicorn: every core busy on
      # CPU-bound work, none oversubscribed, and like for like with Unicorn.
      def self.default_label(cores) = "pitchfork x#{cores}"

      def self.deploy_settings(setup)
        ["worker_processes #{setup.workers}", 'listen Integer(ENV.fetch("PORT", "3000"))', "timeout 30"]
      end

      # The mold is a child of the monitor too; workers are told by their title.
      def worker?(entry, _master_pid)
        WORKER_TITLE.match?(System::ProcessTree.cmdline(entry.pid))
      end

      private

      def settings(setup, _dir)
        ["worker_processes #{setup.workers}", "timeout 120",
         "# refork_after is not set: no automatic reforking (Pitchfork's default)."]
      end
    end
  end
end
