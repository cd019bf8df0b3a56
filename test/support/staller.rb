# frozen_string_literal: true

require "rackbench/system/process_tree"
require "rackbench/clock"
require "rackbench/error"

module Rackbench
  module Workload
    # Makes a server stall like a long stop-the-world GC pause: every `every`
    # seconds the whole process tree under `pid` (master and workers, from
    # System::ProcessTree) gets SIGSTOP, and SIGCONT `pause` seconds later.
    # Used to show what open-loop latency sees that closed-loop latency hides.
    #
    #   staller = Staller.new(server_pid, every: 5, pause: 1, first_after: 1.5).start
    #   ... drive load ...
    #   staller.stop   # continues anything still stopped; always call it (ensure)
    #
    # Runs in a background thread of this process; times on the monotonic
    # clock. Stall n (from 0) starts at start + first_after + n*every (late
    # by however long signalling takes, a few ms for a few processes). A
    # process that appears during a pause is not stopped (a stopped master
    # cannot fork). Every process stopped is sent SIGCONT on #stop, on an
    # error in the thread, and at exit, so nothing stays frozen.
    class Staller
      Stall = Struct.new(:started_at, :ended_at, :pids, keyword_init: true)
      JOIN_S = 10

      attr_reader :stalls

      def initialize(pid, every:, pause:, first_after: nil, tree: nil)
        raise UsageError, "stall pause (#{pause.inspect} s) must be above 0 and below every (#{every.inspect} s)" \
          unless pause.is_a?(Numeric) && every.is_a?(Numeric) && pause.positive? && pause < every

        @pid = pid
        @every = every.to_f
        @pause = pause.to_f
        @first_after = (first_after || every).to_f
        @tree = tree || ->(root) { System::ProcessTree.tree(root).map(&:pid) }
        @stalls = []
        @stopped = []
        @lock = Mutex.new
        @wake = ConditionVariable.new
        @running = false
      end

      def start
        @lock.synchronize do
          raise Error, "staller already started" if @thread

          @running = true
          @origin = Clock.now
          @thread = Thread.new { run }
        end
        at_exit { stop }
        self
      end

      # Ends the stalling and continues every process it stopped. Idempotent.
      # The thread wakes at once (a pause ends early); one that has not ended
      # JOIN_S seconds later (its signalling hung) is killed and said so.
      def stop
        @lock.synchronize do
          @running = false
          @wake.broadcast
        end
        unless @thread.nil? || @thread.join(JOIN_S)
          @thread.kill
          raise Error, "the staller's thread did not end within #{JOIN_S} s of stop (its signalling hung)"
        end
        @stalls
      ensure
        continue_all
      end

      def stalled?
        @lock.synchronize { !@stopped.empty? }
      end

      private

      def run
        n = 0
        while sleep_until(@origin + @first_after + n * @every)
          stall_once
          n += 1
        end
      ensure
        continue_all
      end

      def stall_once
        pids = @tree.call(@pid)
        started = Clock.now
        @lock.synchronize { @stopped = pids }
        signal("STOP", pids)
        sleep_until(started + @pause)
        continue_all
        @lock.synchronize { @stalls << Stall.new(started_at: started, ended_at: Clock.now, pids: pids) }
      end

      # false when stopped before the time came.
      def sleep_until(deadline)
        @lock.synchronize do
          while @running
            left = deadline - Clock.now
            return true if left <= 0

            @wake.wait(@lock, left)
          end
          false
        end
      end

      def continue_all
        pids = @lock.synchronize { @stopped.tap { @stopped = [] } }
        signal("CONT", pids)
      end

      def signal(sig, pids)
        pids.each do |pid|
          Process.kill(sig, pid)
        rescue Errno::ESRCH, Errno::EPERM
          nil
        end
      end
    end
  end
end
