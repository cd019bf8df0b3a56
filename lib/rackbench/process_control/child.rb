# frozen_string_literal: true

require_relative "../system/process_tree"
require_relative "registry"
require_relative "owner_mark"
require_relative "stop"
require_relative "../deadline"
require_relative "../error"
require_relative "../run_file"
require_relative "affinity"
require_relative "layout"

module Rackbench
  module ProcessControl
    # A child process rackbench started: the ONLY way rackbench spawns.
    #
    # - spawned from an argument array (never a shell string), in its own
    #   process group, stdin closed, stdout/stderr appended to a log file
    #   (never through a link: RunFile.spawn_target);
    # - registered so an interrupted run can stop every live child;
    # - stopped with the program's graceful signal sent to the whole group,
    #   escalated to KILL after one deadline (Stop), always reaped;
    # - descendants that left the group (setsid daemons such as Passenger's
    #   agents) are found in /proc before the stop and stopped after it.
    class Child
      attr_reader :pid, :argv, :log_path, :status

      # cpus: CPU ids the process and its descendants run on (Affinity.wrap:
      # taskset execs the program in the same pid); fixed_layout: address
      # randomisation off for it and its descendants (Layout.wrap: setarch
      # execs it in the same pid too); argv stays the program's.
      def self.spawn(argv, env: {}, chdir: nil, log_path: File::NULL, unsetenv_others: false, cpus: nil, fixed_layout: false)
        argv = argv.map(&:to_s)
        opts = { pgroup: true, in: File::NULL, out: RunFile.spawn_target(log_path), err: %i[child out],
                 unsetenv_others: unsetenv_others, close_others: true }
        opts[:chdir] = chdir if chdir
        # An interrupt (a signal raised into this thread) waits until the
        # child is registered, so the stop-everything path always sees it.
        Thread.handle_interrupt(Object => :never) do
          pid = Process.spawn(env.merge(OwnerMark::OWNER_VAR => OwnerMark.owner), *Affinity.wrap(Layout.wrap(argv, fixed_layout), cpus), **opts)
          new(pid, argv, log_path)
        end
      rescue Errno::ELOOP # a link put at the log's name after the check
        RunFile.refuse_link!(log_path)
      rescue Errno::ENOENT, Errno::EACCES => e
        raise Error, "cannot start #{argv.first}: #{e.message.sub(/ - .*/, '')}; install it or check PATH"
      end

      def initialize(pid, argv, log_path)
        @forced = false
        @pid = pid
        @argv = argv
        @log_path = log_path
        @status = nil
        Registry.add(self)
      end

      # Reaps without blocking; true while the process has not exited.
      def alive?
        return false if @status

        done = Process.wait2(@pid, Process::WNOHANG)
        @status = done[1] if done
        @status.nil?
      rescue Errno::ECHILD
        @status ||= :gone
        false
      end

      # Waits up to timeout seconds for the process to exit by itself; true
      # when it did.
      def wait(timeout)
        Deadline.in(timeout).wait_until(every: 0.02) { !alive? } || false
      end

      def signal(sig)
        Process.kill(sig, -@pid)
        true
      rescue Errno::ESRCH, Errno::EPERM
        false
      end

      def signal_leader(sig)
        Process.kill(sig, @pid)
        true
      rescue Errno::ESRCH, Errno::EPERM
        false
      end

      # Graceful stop, one Stop: sig to the group (or, with leader_only, to
      # the child alone, which passes it on to its own processes), then,
      # once the group is gone, TERM to the descendants that escaped the
      # group (found before the stop: they may outlive their parent) and to
      # also (process entries, System::ProcessTree::Entry, known to belong to
      # this child though outside its tree, e.g. a daemonized watchdog); one
      # deadline of timeout seconds for all of it, then KILL to whatever is
      # left and a reap. At most timeout + Stop::KILL_REAP seconds.
      # An interrupt arriving meanwhile waits until the stop is done (a second
      # one KILLs the group, which ends the wait early: CLI::Interrupts).
      # forced? tells afterwards whether the group had to be KILLed.
      def stop(sig = "TERM", timeout: 10, also: [], leader_only: false)
        Thread.handle_interrupt(Interrupted => :never) do
          escaped = (System::ProcessTree.descendants(@pid) + also).reject { |e| e.pgid == @pid || e.pid == @pid }
          Registry.remember(escaped)
          group = Stop::Group.new(self, leader_only)
          survivors = Stop.new(sig, timeout: timeout, every: 0.02).call(group, Stop::Processes.new(escaped))
          @forced = true if survivors.include?(group)
          Registry.delete(self)
          @status
        end
      end

      # True once a stop had to KILL: the process (or its group, its leader
      # gone) was still there when the graceful signal's timeout ran out.
      def forced?
        @forced
      end

      def exit_summary
        case @status
        when Process::Status
          @status.signaled? ? "killed by SIG#{Signal.signame(@status.termsig)}" : "exited with status #{@status.exitstatus}"
        else "still running"
        end
      end

      # True while a process other than a zombie is in the group (its
      # leader's or, the leader gone, its workers').
      def group_alive?
        Process.kill(0, -@pid)
        System::ProcessTree.all.any? { |e| e.pgid == @pid && !System::ProcessTree.zombie?(e.pid) }
      rescue Errno::ESRCH, Errno::EPERM
        false
      end
    end
  end
end
