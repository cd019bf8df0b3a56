# frozen_string_literal: true

module Rackbench
  module ProcessControl
    # Every live child rackbench started, so an interrupted run (SIGINT,
    # SIGTERM, an exception) can stop them all before exiting.
    module Registry
      @children = []
      @lock = Mutex.new

      module_function

      def add(child)
        @lock.synchronize { @children << child }
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
