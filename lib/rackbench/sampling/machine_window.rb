# frozen_string_literal: true

require_relative "noise"

module Rackbench
  module Sampling
    # The whole machine's CPU over exactly the process sampler's window: the
    # sampler reads the first line of /proc/stat, rackbench's own CPU and
    # its reaped children's at every tick, in the same pass as the
    # processes, so the machine's figure and the server's and the load
    # generator's cover the same instants (a window of their own left other
    # processes with up to tens of % of a core that no one used).
    #
    # Method (% of one core, as TrialSummary's): between the first and the
    # last sample,
    # - machine = busy jiffies (all but idle and iowait) over all jiffies,
    #   times the cores; steal (the hypervisor) and interrupts (irq +
    #   softirq) are inside it and said on their own;
    # - rackbench = its own process CPU (CLOCK_PROCESS_CPUTIME_ID, every
    #   thread: the sampler, the queue readers, the health check);
    # - the load generator = the larger of what the sampler saw of it and
    #   the CPU of rackbench's children reaped in the window (Process.times:
    #   wrk exits and is reaped inside the window, so this counts its start
    #   and end, which the samples miss);
    # - foreign = machine - steal - interrupts - server - load generator -
    #   rackbench, at least 0. Interrupts are left out: with
    #   CONFIG_IRQ_TIME_ACCOUNTING no process is charged for them (loopback
    #   traffic's softirq is the benchmark's own work); without it the
    #   process interrupted is, so foreign may read low by up to interrupts_pct.
    # Error bound (error_pct): /proc/stat counts each CPU's busy time at its
    # scheduler tick (at most 10 ms) and each process's CPU is read in 10 ms
    # units, so over a window of W seconds the figure is good to
    # +-(2 x cores + processes) x 10 ms / W, i.e. (2 x cores + processes) / W
    # % of one core: 4.5% for 2 cores and 5 processes over 2 s, 21% for 16
    # cores and 10 processes. Tick sampling of a CPU busy part of the time
    # adds a random error on top, smaller over longer trials. Other
    # processes are flagged above limit_pct = Noise::QUIET_PCT + error_pct,
    # a threshold that grows with the cores.
    class MachineWindow
      TICK_S = 0.01 # USER_HZ: the unit of /proc/stat and of a process's utime + stime

      Reading = Struct.new(:total, :busy, :steal, :interrupts, :own_s, :reaped_s, keyword_init: true)

      # own: callable -> [own CPU seconds, reaped children's CPU seconds].
      def initialize(proc_root: "/proc", own: method(:own_cpu))
        @path = File.join(proc_root, "stat")
        @own = own
      end

      # A Reading, or nil when /proc/stat cannot be read.
      def read
        fields = File.foreach(@path).first.to_s.split
        return nil unless fields.first == "cpu" && fields.size >= 5

        n = fields[1..].map(&:to_i)
        total = n.first(8).sum # guest time is already inside user
        own_s, reaped_s = @own.call
        Reading.new(total: total, busy: total - n[3] - n[4].to_i, steal: n[7].to_i, interrupts: n[5].to_i + n[6].to_i,
                    own_s: own_s, reaped_s: reaped_s)
      rescue SystemCallError
        nil
      end

      # The trial record's "machine" between two Readings (nil if either is
      # missing); wall_s: the samples' span; server_pct, client_pct: the
      # sampler's figures over it; processes: how many it read.
      def self.figures(first, last, wall_s:, cores:, server_pct:, client_pct:, processes:)
        return nil unless first && last && wall_s.positive? && last.total > first.total

        share = ->(field) { 100.0 * cores * (last[field] - first[field]) / (last.total - first.total) }
        per_s = ->(field) { 100.0 * (last[field] - first[field]) / wall_s }
        machine = share.call(:busy)
        client = [client_pct.to_f, per_s.call(:reaped_s)].max
        ours = per_s.call(:own_s)
        foreign = machine - share.call(:steal) - share.call(:interrupts) - server_pct.to_f - client - ours
        error = (2 * cores + processes) * TICK_S * 100.0 / wall_s
        { "cpu_pct" => machine.round(1), "steal_pct" => share.call(:steal).round(1),
          "interrupts_pct" => share.call(:interrupts).round(1), "rackbench_pct" => ours.round(1),
          "client_reaped_pct" => per_s.call(:reaped_s).round(1), "foreign_pct" => [foreign, 0.0].max.round(1),
          "foreign_error_pct" => error.round(1), "foreign_limit_pct" => (Noise::QUIET_PCT + error).round(1),
          "window" => "sampler", "window_s" => wall_s.round(3) }
      end

      def own_cpu
        t = Process.times
        [Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID), t.cutime + t.cstime]
      end
    end
  end
end
