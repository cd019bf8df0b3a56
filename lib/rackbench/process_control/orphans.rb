# frozen_string_literal: true

require "fiddle"
require "set"
require_relative "registry"
require_relative "stop"
require_relative "../system/process_tree"

module Rackbench
  module ProcessControl
    # Processes that what rackbench started left behind, found by ancestry,
    # not by marks in their environment (a daemon can scrub it: exec with
    # unsetenv_others). rackbench makes itself a child subreaper
    # (prctl(PR_SET_CHILD_SUBREAPER), Linux >= 3.4, prctl(2)): a process whose
    # parent exits is re-parented to rackbench instead of init, however it
    # double-forked or left its session. So a live process whose parent is
    # rackbench, that rackbench did not spawn (Registry's history), is an
    # orphan of something it started; with its descendants, it is stopped
    # (TERM, then KILL) and its zombie reaped.
    module Orphans
      PR_SET_CHILD_SUBREAPER = 36
      PR_GET_CHILD_SUBREAPER = 37

      module_function

      # Makes this process a child subreaper; false where the kernel or libc
      # offers no prctl (then only the environment marks find orphans).
      def adopt!
        prctl&.call(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)&.zero? || false
      end

      # A subreaper for the block's length only, as it was before after it:
      # a command called in-process (a test, a script) must not leave its
      # caller adopting every orphan of the machine's later processes.
      def adopting
        before = subreaper?
        adopt! unless before
        yield
      ensure
        prctl&.call(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) if before == false
      end

      # Whether this process is a child subreaper now (nil: no prctl).
      def subreaper?
        f = prctl or return nil
        flag = Fiddle::Pointer.malloc(Fiddle::SIZEOF_INT)
        return nil unless f.call(PR_GET_CHILD_SUBREAPER, flag.to_i, 0, 0, 0).zero?

        flag[0, Fiddle::SIZEOF_INT].unpack1("i") != 0
      end

      def prctl
        return @prctl if defined?(@prctl)

        @prctl = Fiddle::Function.new(Fiddle::Handle::DEFAULT["prctl"], [Fiddle::TYPE_INT] + [Fiddle::TYPE_LONG] * 4, Fiddle::TYPE_INT)
      rescue Fiddle::DLError
        @prctl = nil
      end

      # Live processes re-parented to rackbench (and their descendants) that
      # it did not spawn and that started at or after since (a start time in
      # clock ticks since boot, as ProcessTree::Entry#starttime).
      def adopted(since: 0)
        all = System::ProcessTree.all
        spawned = Registry.history.to_set { |e| [e.pid, e.starttime] } | Registry.live.to_set(&:pid)
        roots = all.select do |e|
          e.ppid == Process.pid && e.starttime >= since && !spawned.include?([e.pid, e.starttime]) &&
            !spawned.include?(e.pid) && !System::ProcessTree.zombie?(e.pid)
        end
        roots.flat_map { |r| System::ProcessTree.tree(r.pid) }.uniq(&:pid)
      end

      # Stops entries (TERM, KILL after timeout; timeout 0: KILL at once,
      # e.g. a fork of rackbench itself, whose inherited traps would answer
      # TERM with a backtrace) and reaps those that were rackbench's
      # children; returns "PID command" of each, for the warning.
      def stop(entries, timeout: 2)
        return [] if entries.empty?

        named = entries.map { |e| "#{e.pid} #{System::ProcessTree.cmdline(e.pid)[0, 60].strip}" }
        timeout.positive? ? Stop.processes(entries, timeout: timeout) : Stop.kill(entries)
        entries.each { |e| reap(e.pid) }
        named
      end

      def reap(pid)
        Process.waitpid(pid, Process::WNOHANG) || (sleep(0.05) && Process.waitpid(pid, Process::WNOHANG))
      rescue Errno::ECHILD
        nil
      end

      # Now as a start time (clock ticks since boot), for adopted(since:).
      def now
        System::ProcessTree.uptime_ticks
      end
    end
  end
end
