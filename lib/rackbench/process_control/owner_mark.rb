# frozen_string_literal: true

require_relative "../system/process_tree"

module Rackbench
  module ProcessControl
    # The marks rackbench leaves in the environment of every child, which its
    # descendants inherit, daemons that left the process group included
    # (Passenger's watchdog), and how live processes are found by them:
    #
    # - RACKBENCH_OWNER=<pid>:<start time> of the rackbench that started it
    #   (OWNER_VAR, set by Child.spawn). A rackbench that no longer runs is
    #   told apart from a live one by the start time too (field 22 of
    #   /proc/PID/stat, clock ticks since boot): a pid reused by the kernel
    #   has another, so an unrelated process is never taken for ours.
    # - RACKBENCH_BOOT=<random> of one server's boot (BOOT_VAR, set by
    #   ServerInstance): what that server's app started and left behind.
    #
    # Journal (the ledger of what was started) and the stops that act on
    # what is found (Stop) are elsewhere; this only finds.
    module OwnerMark
      OWNER_VAR = "RACKBENCH_OWNER"
      BOOT_VAR = "RACKBENCH_BOOT"

      module_function

      # This rackbench's mark: "pid:starttime".
      def owner
        @owner ||= "#{Process.pid}:#{System::ProcessTree.read_stat(Process.pid)&.starttime}"
      end

      # Live processes that carry this rackbench's mark and boot's mark: what
      # that server's app started and left behind, daemons that left its
      # process group too.
      def left_by(boot)
        want = "#{BOOT_VAR}=#{boot}"
        mine = "#{OWNER_VAR}=#{owner}"
        System::ProcessTree.all.select do |e|
          next false if e.pid == Process.pid || System::ProcessTree.zombie?(e.pid)

          env = File.binread("/proc/#{e.pid}/environ").split("\0")
          env.include?(want) && env.include?(mine)
        rescue SystemCallError
          false
        end
      end

      # Live processes marked by any rackbench that no longer runs.
      def orphans
        marks = System::ProcessTree.all.filter_map { |e| (m = of(e.pid)) && [e, m] }
        dead = marks.map(&:last).uniq.reject { |o| alive?(o) }
        collect([], dead, marks)
      end

      # The live members and descendants of roots' groups (ProcessTree
      # entries), and every live process carrying one of owners' marks.
      def collect(roots, owners, marks = nil)
        return [] if roots.empty? && owners.empty?

        all = System::ProcessTree.all
        marks ||= all.filter_map { |e| (m = of(e.pid)) && [e, m] }
        found = roots.flat_map { |r| all.select { |e| e.pgid == r.pid } + System::ProcessTree.tree(r.pid) }
        found += marks.select { |_, m| owners.include?(m) }.map(&:first)
        found.reject { |e| e.pid == Process.pid || System::ProcessTree.zombie?(e.pid) }.uniq(&:pid)
      end

      # The owner mark pid's environment carries, or nil.
      def of(pid)
        File.binread("/proc/#{pid}/environ").split("\0").find { |kv| kv.start_with?("#{OWNER_VAR}=") }&.split("=", 2)&.last
      rescue SystemCallError
        nil
      end

      # True while the rackbench that made the mark still runs.
      def alive?(owner)
        pid, start = owner.to_s.split(":").map(&:to_i)
        entry = System::ProcessTree.read_stat(pid)
        !entry.nil? && entry.starttime == start
      end
    end
  end
end
