# frozen_string_literal: true

require_relative "../sampling/process_tree"

module Rackbench
  module ProcessControl
    # Every live child rackbench started, so an interrupted run (SIGINT,
    # SIGTERM, an exception) can stop them all before exiting.
    module Registry
      @children = []
      @history = []
      @lock = Mutex.new

      module_function

      def add(child)
        entry = Sampling::ProcessTree.read_stat(child.pid)
        @lock.synchronize do
          @children << child
          @history << entry if entry
        end
      end

      # Every process ever spawned or handed to remember (ProcessTree entries),
      # so a test suite can prove that none of them outlived it.
      def history
        @lock.synchronize { @history.dup }
      end

      def remember(entries)
        @lock.synchronize { @history.concat(entries) }
      end

      def delete(child)
        @lock.synchronize { @children.delete(child) }
      end

      def live
        @lock.synchronize { @children.dup }
      end

      # Stops the newest first (a load generator before the server it loads).
      def stop_all(timeout: 5)
        live.reverse_each { |child| child.stop("TERM", timeout: timeout) }
      end
    end
  end
end
