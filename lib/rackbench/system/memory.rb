# frozen_string_literal: true

module Rackbench
  module System
    # RSS, PSS and USS of one process, in bytes, from /proc/PID/smaps_rollup
    # (Linux 4.14+), else summed over every mapping of /proc/PID/smaps.
    #
    # RSS counts every resident page the process maps, so pages a preforked
    # server's workers share copy-on-write with the master are counted once
    # per process. PSS divides each page by the number of processes mapping
    # it, so the PSS of all processes of a server adds up to its footprint.
    # USS (Private_Clean + Private_Dirty) is what exiting the process would
    # free. Reading smaps_rollup makes the kernel walk the page tables: about
    # 0.75 ms for a Puma worker here, so the Sampler reads it less often than stat.
    module Memory
      Usage = Struct.new(:rss, :pss, :uss, :swap, keyword_init: true)
      LINE = /^(Rss|Pss|Private_Clean|Private_Dirty|Swap):\s+(\d+) kB/.freeze

      module_function

      # nil when the process is gone or its maps are unreadable; never raises for that.
      def read(pid, proc_root: "/proc")
        dir = "#{proc_root}/#{pid}"
        text = begin
          File.read("#{dir}/smaps_rollup")
        rescue Errno::ENOENT
          File.read("#{dir}/smaps") if File.exist?("#{dir}/stat")
        end
        text && parse(text)
      rescue Errno::ENOENT, Errno::ESRCH, Errno::EACCES, Errno::EPERM
        nil
      end

      # The machine's MemAvailable (/proc/meminfo: what can be allocated
      # without swapping, page cache counted as reclaimable), in bytes; nil
      # when unreadable.
      def available(meminfo: "/proc/meminfo")
        File.foreach(meminfo) { |l| return l.split[1].to_i * 1024 if l.start_with?("MemAvailable:") }
        nil
      rescue SystemCallError
        nil
      end

      # Sums each field over all mappings (a rollup has one), kB -> bytes.
      def parse(text)
        kb = Hash.new(0)
        text.scan(LINE) { |key, value| kb[key] += value.to_i }
        Usage.new(rss: kb["Rss"] * 1024, pss: kb["Pss"] * 1024,
                  uss: (kb["Private_Clean"] + kb["Private_Dirty"]) * 1024, swap: kb["Swap"] * 1024)
      end
    end
  end
end
