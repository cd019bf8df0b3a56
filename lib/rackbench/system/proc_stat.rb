# frozen_string_literal: true

require "etc"

module Rackbench
  module System
    # Per-process CPU time, thread count and RSS from /proc/PID/stat (Linux).
    #
    # utime and stime count clock ticks (USER_HZ, 100 per second on Linux:
    # 10 ms resolution) summed over every thread of the process; children's
    # times (cutime/cstime) are left out, since children are sampled on their
    # own. RSS here is the kernel's resident page count times the page size;
    # Memory reads the same figure with PSS and USS from smaps_rollup.
    module ProcStat
      Stat = Struct.new(:pid, :ppid, :comm, :state, :starttime, :utime_ticks, :stime_ticks, :threads,
                        :rss_bytes, keyword_init: true) do
        def cpu_seconds
          (utime_ticks + stime_ticks) / ProcStat.ticks_per_second.to_f
        end
      end

      # state ppid, 9 skipped, utime stime, 4 skipped, num_threads, 1 skipped, starttime, 1 skipped, rss
      FIELDS = /\G\) (\S) (-?\d+) (?:\S+ ){9}(\d+) (\d+) (?:\S+ ){4}(\d+) \S+ (\d+) \S+ (\d+)/n.freeze
      TICKS = Etc.sysconf(Etc::SC_CLK_TCK)
      PAGE = Etc.sysconf(Etc::SC_PAGESIZE)

      module_function

      def ticks_per_second
        TICKS
      end

      # nil when the process is gone (or unreadable); never raises for that.
      # Fields after "(comm)" (proc(5), 1-based numbers): 3 state, 4 ppid,
      # 14 utime, 15 stime, 20 num_threads, 22 starttime, 24 rss (pages).
      def read(pid, proc_root: "/proc")
        parse(File.binread("#{proc_root}/#{pid}/stat"), pid)
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        nil
      end

      # nil for a truncated or empty line. One anchored match from the last
      # ")" (comm may hold spaces and parentheses) keeps allocations low:
      # this runs for every process at every sample.
      def parse(raw, pid)
        close = raw.rindex(")") or return nil
        m = FIELDS.match(raw, close) or return nil
        open = raw.index("(")
        Stat.new(pid: Integer(pid), ppid: m[2].to_i, comm: raw.byteslice(open + 1, close - open - 1), state: m[1],
                 utime_ticks: m[3].to_i, stime_ticks: m[4].to_i, threads: m[5].to_i, starttime: m[6].to_i,
                 rss_bytes: m[7].to_i * PAGE)
      end

      # Pids of the process's children: /proc/PID/task/TID/children lists
      # those each thread forked (Linux 3.5+, CONFIG_PROC_CHILDREN). Costs a
      # few reads per process instead of a pass over all of /proc. nil when
      # the process is gone or the kernel lacks the file.
      def children(pid, proc_root: "/proc")
        dir = "#{proc_root}/#{pid}/task"
        Dir.children(dir).flat_map { |tid| File.binread("#{dir}/#{tid}/children").split.map(&:to_i) }
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        nil
      end

      # VmRSS and Threads from /proc/PID/status, in bytes and threads (nil when gone).
      def status(pid, proc_root: "/proc")
        text = File.read("#{proc_root}/#{pid}/status")
        rss = text[/^VmRSS:\s+(\d+) kB/, 1]
        threads = text[/^Threads:\s+(\d+)/, 1]
        { rss_bytes: rss && rss.to_i * 1024, threads: threads&.to_i }
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES
        nil
      end

      # Keeps each process's stat file open between samples: re-reading an
      # open file at offset 0 makes the kernel regenerate it without a path
      # lookup, about a third of the cost of opening it again. An open file
      # stays bound to its process: once that exits, reads fail (ESRCH) even
      # if the pid is reused. Not thread-safe: one per sampling thread.
      class Handles
        def initialize(proc_root: "/proc")
          @proc_root = proc_root
          @open = {}
          @buffer = String.new(capacity: 2048)
        end

        def read(pid)
          io = (@open[pid] ||= File.open("#{@proc_root}/#{pid}/stat", "rb"))
          ProcStat.parse(io.pread(2048, 0, @buffer), pid) || drop(pid)
        rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES, EOFError
          drop(pid)
        end

        # Closes the files of processes not in pids.
        def keep(pids)
          (@open.keys - pids).each { |pid| drop(pid) }
        end

        def close
          keep([])
        end

        private

        def drop(pid)
          @open.delete(pid)&.close
          nil
        end
      end
    end
  end
end
