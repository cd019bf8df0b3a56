# frozen_string_literal: true

require "etc"
require "set"
require_relative "../clock"
require_relative "../system/proc_stat"
require_relative "../system/machine_cpu"
require_relative "../load/registry"

module Rackbench
  module Sampling
    # Is the machine quiet? Other processes' CPU use over a short window,
    # measured before a run (and by `rackbench doctor`), and the same figure
    # for each trial.
    #
    # Method (unit: % of one core, as TrialSummary's CPU figures):
    # - machine = busy jiffies of /proc/stat's "cpu" line over the window
    #   (MachineCpu: every CPU, kernel threads and short-lived processes too);
    # - ours = CPU time (utime + stime, /proc/PID/stat) over the window of
    #   this process and every process it started (its descendants);
    # - steal = the hypervisor's share (MachineCpu#steal_pct): inside machine,
    #   but no process here can be named for it, so it is said on its own;
    # - foreign = machine - steal - ours, at least 0;
    # - top = the processes, other than ours, that used the most CPU time
    #   between the two readings (a process that started and ended within
    #   the window counts in foreign but cannot be named).
    # Limits: 10 ms clock ticks, so a 0.5 s window resolves ~2% of a core per
    # process; one window sees only what was busy during it.
    class Noise
      QUIET_PCT = 10.0 # foreign CPU above this (% of one core) is "not quiet"
      STEAL_PCT = 5.0  # the hypervisor taking more than this (% of one core) is "not quiet" too
      WINDOW_S = 0.5
      TOP = 3

      Busy = Struct.new(:pid, :comm, :cpu_pct, keyword_init: true)
      Reading = Struct.new(:window_s, :machine_pct, :ours_pct, :foreign_pct, :top, :steal_pct, keyword_init: true) do
        def quiet?
          (foreign_pct.nil? || foreign_pct <= QUIET_PCT) && steal_pct.to_f <= STEAL_PCT
        end

        def to_h
          { "window_s" => window_s.round(3), "machine_pct" => machine_pct, "ours_pct" => ours_pct,
            "foreign_pct" => foreign_pct, "steal_pct" => steal_pct, "quiet" => quiet?,
            "top" => top.map { |b| { "pid" => b.pid, "comm" => b.comm, "cpu_pct" => b.cpu_pct } } }
        end

        # "other processes used 85% of a core: 1234 ruby 60%, 99 cc1 20%"
        def describe
          named = top.map { |b| "#{b.pid} #{b.comm} #{b.cpu_pct.round}%" }.join(", ")
          steal = steal_pct.to_f > STEAL_PCT ? "; the hypervisor took #{steal_pct.round}% of a core (steal time)" : ""
          "other processes used #{foreign_pct.round}% of a core over #{window_s.round(1)} s" \
            "#{named.empty? ? '' : ": #{named}"}#{steal}"
        end

        # A run's warning: what happened, why it matters, what to do.
        def warning
          "the machine is not quiet: #{describe}; they take CPU from the server and the load generator, so " \
            "figures will be noisy: stop them, separate cores (--cpus auto) and raise --repeat"
        end
      end

      def self.measure(window: WINDOW_S, proc_root: "/proc", root: Process.pid)
        new(proc_root: proc_root, root: root).measure(window)
      end

      # The CPU of one trial not used by the server, the load generator or
      # rackbench itself (record: a trial record with "cpu" and "machine";
      # ours_pct: rackbench's own CPU over the trial). nil when unknown.
      def self.foreign_pct(record, ours_pct)
        machine = record.dig("machine", "cpu_pct")
        server = record.dig("cpu", "server_pct")
        return nil unless machine && server

        foreign = machine - record.dig("machine", "steal_pct").to_f - server - record.dig("cpu", "client_pct").to_f - ours_pct.to_f
        [foreign, 0].max.round(1)
      end

      # Was a trial measured under foreign load? Its foreign CPU above the
      # limit stored with it (QUIET_PCT plus the error bound of its window,
      # MachineWindow), or above QUIET_PCT for a record without one.
      def self.foreign?(record)
        pct = record.dig("machine", "foreign_pct")
        !pct.nil? && pct > foreign_limit(record)
      end

      def self.foreign_limit(record)
        record.dig("machine", "foreign_limit_pct") || QUIET_PCT
      end

      # Before a run: one warning through the listener when the machine is
      # busy (never for an engine that sends no load: the fake).
      def self.check_before_run(listener, engine)
        return unless Load.loads?(engine.name)

        reading = measure
        listener.warning(reading.warning) unless reading.quiet?
        reading
      end

      def initialize(proc_root: "/proc", root: Process.pid)
        @proc = proc_root
        @root = root
        @machine = System::MachineCpu.new(proc_root: proc_root)
      end

      def measure(window)
        @machine.start
        first = processes
        started = Clock.now
        sleep window
        last = processes
        @machine.stop
        elapsed = Clock.now - started
        used = last.filter_map do |key, stat|
          before = first[key]
          before && [stat, 100.0 * (stat.cpu_seconds - before.cpu_seconds) / elapsed]
        end
        ours = descendants(last.values)
        ours_pct = used.sum { |stat, pct| ours.include?(stat.pid) ? pct : 0 }.round(1)
        others = used.reject { |stat, pct| ours.include?(stat.pid) || pct <= 0 }.max_by(TOP) { |_, pct| pct }
        machine = @machine.busy_pct
        steal = @machine.steal_pct
        Reading.new(window_s: elapsed, machine_pct: machine, ours_pct: ours_pct, steal_pct: steal,
                    foreign_pct: machine && [machine - steal.to_f - ours_pct, 0].max.round(1),
                    top: others.map { |stat, pct| Busy.new(pid: stat.pid, comm: stat.comm, cpu_pct: pct.round(1)) })
      end

      private

      # {[pid, starttime] => Stat}: the identity survives pid reuse.
      def processes
        Dir.children(@proc).grep(/\A\d+\z/).filter_map { |pid| System::ProcStat.read(pid, proc_root: @proc) }
           .to_h { |s| [[s.pid, s.starttime], s] }
      end

      def descendants(stats)
        children = stats.group_by(&:ppid)
        seen = [@root]
        seen.each { |pid| children.fetch(pid, []).each { |c| seen << c.pid } }
        seen.to_set
      end
    end
  end
end
