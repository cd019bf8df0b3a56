# frozen_string_literal: true

require "etc"

module Rackbench
  module System
    # Reads the process tree from /proc (Linux only).
    #
    # Method: one pass over /proc/[0-9]*/stat per call, building parent ->
    # children links, then a walk from the root. Processes that exit while we
    # read are skipped. Cost is proportional to the number of processes on the
    # machine (a few ms for a few hundred), so callers re-discover per sample
    # rather than caching: workers can be restarted at any time.
    module ProcessTree
      Entry = Struct.new(:pid, :ppid, :pgid, :comm, :starttime, keyword_init: true)

      module_function

      # stat fields after "(comm)": state ppid pgrp session ... starttime is field 22.
      def read_stat(pid, proc_root: "/proc")
        raw = File.read("#{proc_root}/#{pid}/stat")
        close = raw.rindex(")")
        comm = raw[(raw.index("(") + 1)...close]
        fields = raw[(close + 2)..].split
        Entry.new(pid: Integer(pid), ppid: fields[1].to_i, pgid: fields[2].to_i, comm: comm,
                  starttime: fields[19].to_i)
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES, NoMethodError, TypeError
        nil
      end

      def all(proc_root: "/proc")
        Dir.children(proc_root).grep(/\A\d+\z/).filter_map { |pid| read_stat(pid, proc_root: proc_root) }
      end

      # The root and every descendant, root first (breadth-first).
      def tree(root_pid, proc_root: "/proc")
        entries = all(proc_root: proc_root)
        by_parent = entries.group_by(&:ppid)
        root = entries.find { |e| e.pid == root_pid }
        return [] unless root

        out = [root]
        queue = [root_pid]
        until queue.empty?
          (by_parent[queue.shift] || []).each do |child|
            out << child
            queue << child.pid
          end
        end
        out
      end

      def descendants(root_pid, proc_root: "/proc")
        tree(root_pid, proc_root: proc_root).drop(1)
      end

      # The process's command line as one string ("" when unreadable).
      # Servers retitle processes here ("puma: cluster worker 0", "Passenger RubyApp").
      def cmdline(pid, proc_root: "/proc")
        File.binread("#{proc_root}/#{pid}/cmdline").split("\0").join(" ").force_encoding(Encoding::UTF_8).scrub
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        ""
      end

      def alive?(entry, proc_root: "/proc")
        now = read_stat(entry.pid, proc_root: proc_root)
        !now.nil? && now.starttime == entry.starttime && !zombie?(entry.pid, proc_root: proc_root)
      end

      # The time since boot in the unit of Entry#starttime (clock ticks).
      def uptime_ticks(proc_root: "/proc")
        (File.read("#{proc_root}/uptime").to_f * Etc.sysconf(Etc::SC_CLK_TCK)).floor
      end

      def zombie?(pid, proc_root: "/proc")
        raw = File.read("#{proc_root}/#{pid}/stat")
        raw[(raw.rindex(")") + 2)] == "Z"
      rescue Errno::ENOENT, Errno::ESRCH
        true
      end
    end
  end
end
