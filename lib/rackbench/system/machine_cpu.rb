# frozen_string_literal: true

require "etc"

module Rackbench
  module System
    # The whole machine's CPU use over an interval, from the first line of
    # /proc/stat (jiffies per state, summed over every CPU): busy = all but
    # idle and iowait, as a share of all jiffies that passed, times the
    # cores, so 100 = one core busy (the same unit as TrialSummary's CPU %).
    # The rest of the machine (other users' processes) is then this minus
    # what the server and the load generator used. nil when /proc/stat is
    # missing or unreadable.
    # Steal (the 8th figure): time a virtual CPU was ready to run but the
    # hypervisor ran something else. It is inside busy (the machine could
    # not use it) and reported on its own (steal_pct), since no process of
    # this machine can be named for it.
    class MachineCpu
      def initialize(proc_root: "/proc", cores: Etc.nprocessors)
        @path = File.join(proc_root, "stat")
        @cores = cores
      end

      def start
        @first = read
      end

      def stop
        @last = read
      end

      def busy_pct
        pct(1)
      end

      def steal_pct
        pct(2)
      end

      # [total jiffies, busy jiffies, steal jiffies] or nil.
      def read
        fields = File.foreach(@path).first.to_s.split
        return nil unless fields.first == "cpu" && fields.size >= 5

        n = fields[1..].map(&:to_i)
        idle = n[3] + n[4].to_i # idle + iowait
        total = n.first(8).sum  # guest time is already inside user
        [total, total - idle, n[7].to_i]
      rescue SystemCallError
        nil
      end

      private

      def pct(index)
        return nil unless @first && @last

        total = @last[0] - @first[0]
        total.positive? ? (100.0 * @cores * (@last[index] - @first[index]) / total).round(1) : nil
      end
    end
  end
end
