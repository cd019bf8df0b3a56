# frozen_string_literal: true

require_relative "../system/process_tree"
require_relative "../deadline"

module Rackbench
  module ProcessControl
    # The one way rackbench stops processes: a signal, one deadline, one
    # escalation, and the survivors said. After Puma's WorkerHandle#term,
    # async-container's stop policy and Sidekiq's single shutdown deadline.
    #
    #   survivors = Stop.new("TERM", timeout: 15).call(group, escaped)
    #
    # 1. The graceful signal to each target in turn, the next once the one
    #    before it is gone: a server's process group first, then what left
    #    the group (a daemon may be waiting for its master to go).
    # 2. One deadline for all of them, Deadline.in(timeout), never restarted.
    # 3. At the deadline, KILL to every target not gone: the survivors,
    #    returned (Child#forced? is its group being one of them).
    # 4. A short wait, at most KILL_REAP s, for the KILLed to be gone
    #    (Child#alive? reaps its process on the way).
    #
    # So a stop takes at most timeout + KILL_REAP seconds however many
    # targets it has. (Before issue 45, Child#stop waited the timeout for the
    # leader, 5 s more after its KILL, the timeout again for the rest of its
    # group and 3 s for what left the group: 2 x timeout + 8 s.)
    #
    # A target answers signal(sig) and gone?: Group (a Child's process
    # group) or Processes (ProcessTree entries found in /proc).
    class Stop
      # KILL cannot be caught; a process still there this long after it is
      # stuck in the kernel (uninterruptible sleep), and waiting longer
      # would not help.
      KILL_REAP = 3

      # The graceful signal to each entry's group (when it leads one, so a
      # server's workers go with their master) and to itself, KILL after
      # timeout (timeout 0: no graceful signal at all, see kill). Returns
      # entries.
      def self.processes(entries, timeout: 5)
        new("TERM", timeout: timeout).call(Processes.new(entries))
        entries
      end

      # KILL at once to those of entries still alive: for what must not get
      # a graceful signal (a fork of rackbench, whose inherited traps would
      # answer TERM with a backtrace). Returns entries.
      def self.kill(entries)
        Processes.new(entries).signal("KILL")
        entries
      end

      # "PID command, ..." of the first entries, for a message.
      def self.describe(entries)
        entries.first(6).map { |e| "#{e.pid} #{System::ProcessTree.cmdline(e.pid)[0, 40].strip}" }.join(", ") +
          (entries.size > 6 ? ", ..." : "")
      end

      # sig: the graceful signal; timeout: seconds before KILL; every:
      # seconds between looks.
      def initialize(sig, timeout:, every: 0.05)
        @sig = sig
        @timeout = timeout
        @every = every
        freeze
      end

      # Stops targets in order; returns those KILLed at the deadline.
      def call(*targets)
        deadline = Deadline.in(@timeout)
        survivors = targets.reject do |target|
          target.signal(@sig) unless target.gone?
          deadline.wait_until(every: @every) { target.gone? }
        end
        return survivors if survivors.empty?

        survivors.each { |target| target.signal("KILL") }
        Deadline.in(KILL_REAP).wait_until(every: @every) { survivors.all?(&:gone?) }
        survivors
      end

      # A Child's process group: the graceful signal to the whole group, or
      # with leader_only to the leader alone, which passes it on (Unicorn's
      # QUIT); KILL always to the whole group. Gone once the leader is
      # reaped and no member is left (a worker may outlive its master).
      Group = Struct.new(:child, :leader_only) do
        def signal(sig)
          leader_only && sig != "KILL" ? child.signal_leader(sig) : child.signal(sig)
        end

        def gone?
          !child.alive? && !child.group_alive?
        end
      end

      # Processes found in /proc (ProcessTree entries: pid and start time,
      # so a pid the kernel reused is never signalled). Gone once none is
      # alive.
      Processes = Struct.new(:entries) do
        def signal(sig)
          entries.each do |e|
            next unless System::ProcessTree.alive?(e)

            Process.kill(sig, -e.pid) if e.pgid == e.pid
            Process.kill(sig, e.pid)
          rescue Errno::ESRCH, Errno::EPERM
            nil
          end
        end

        def gone?
          entries.none? { |e| System::ProcessTree.alive?(e) }
        end
      end
    end
  end
end
