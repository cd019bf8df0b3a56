# frozen_string_literal: true

require "etc"
require_relative "../clock"
require_relative "../periodic"
require_relative "../error"
require_relative "../system/process_tree"
require_relative "../system/proc_stat"
require_relative "../system/memory"
require_relative "trial_summary"

module Rackbench
  module Sampling
    # Samples the processes of a trial in a background thread.
    #
    # Method:
    # - Rate: CPU time, threads and RSS (/proc/PID/stat) every `interval`,
    #   5 Hz by default: a 2 s trial still gets ~10 samples, and the cost
    #   is 0.7% of one core for 10 idle Ruby processes (1.3 ms a sample; see
    #   Cost below). Ticks follow
    #   the monotonic clock (Clock.now) on a fixed schedule t0 + k * interval
    #   (Periodic): the thread sleeps until the next tick, so the time a
    #   sample takes does not drift the rate; a tick missed because the
    #   machine was busy is skipped and counted, not bunched up. #stop takes
    #   one last sample (with memory), so the window ends when the
    #   measurement ends.
    # - Cheaper than every tick: PSS (smaps_rollup makes the kernel walk the
    #   page tables, ~0.75 ms per Puma worker) every MEMORY_INTERVAL, and
    #   finding the processes (roles) every DISCOVER_INTERVAL; each is
    #   stretched further when one pass would cost more than BUDGET (0.2%) of
    #   one core. A process from the last discovery that is gone triggers
    #   discovery at once, so a restarted worker's successor is found in the
    #   same sample. Stat files stay open between ticks (ProcStat::Handles).
    # - Cost (bench/sampler_overhead.rb 6 ruby, 10 idle processes, 2-vCPU
    #   VM): at the default interval 0.2 s the sampling thread used
    #   0.65-0.87% of one core and the whole process 0.58-0.65% more than
    #   idle, on Periodic's loop, against 0.66-0.73% and 0.59-0.65% with the
    #   sampler's own loop before it (three interleaved runs each,
    #   2026-11-26: the same within this machine's noise); at 0.1 s ~1.0-1.1%
    #   in steady state, 1.4-2% over a 5 s run (the first second carries
    #   one-off costs).
    # - The machine: /proc/stat's CPU line and rackbench's own CPU are read in
    #   the same pass (MachineWindow), so other processes' share is taken
    #   over exactly the processes' window.
    # - Identity: (pid, starttime), so a reused pid is a new process.
    # - CPU: utime + stime, which the kernel counts in clock ticks (10 ms):
    #   one 0.1 s interval of one process is only good to +-10 points, a
    #   trial's mean to one tick per process at each end (+-0.5 points over
    #   4 s). CPU a process used before the first sample that sees it is not
    #   counted.
    # - Memory: PSS splits each shared page among the processes mapping it,
    #   so the sum of PSS is the server's footprint; summed RSS counts the
    #   copy-on-write pages a preloaded master shares with its workers once
    #   per worker and overstates it (both are reported).
    # - Limits: a process living less than one interval can be missed, and
    #   one appearing without another exiting is found at the next discovery
    #   (up to 2 s late); memory between memory samples is not seen (the PSS
    #   max is the max of the samples, not the true peak); Linux only.
    class Sampler
      DEFAULT_INTERVAL = 0.2
      MEMORY_INTERVAL = 1.0
      DISCOVER_INTERVAL = 2.0
      BUDGET = 0.002
      CLIENT = TrialSummary::CLIENT

      # roles: callable returning {role => [ProcessTree::Entry or pid, ...]}
      #   with roles "master", "worker", "client" (the load generator) and any
      #   other name for further server processes ("other"). A pid listed
      #   twice is sampled once, under the first role listing it.
      # machine: a MachineWindow (nil: no machine reading).
      # client: optional callable returning the load generator's pids (or
      #   entries), called at EVERY sample, so it must be cheap; use it when
      #   the load generator starts after the sampler (descendants not followed).
      def initialize(roles:, client: nil, interval: DEFAULT_INTERVAL, memory_interval: MEMORY_INTERVAL,
                     discover_interval: DISCOVER_INTERVAL, proc_root: "/proc", clock: Clock, cores: Etc.nprocessors,
                     budget: BUDGET, machine: MachineWindow.new(proc_root: proc_root))
        raise ArgumentError, "interval must be positive, got #{interval.inspect}" unless interval.to_f.positive?

        @roles = roles
        @client = client
        @interval = interval.to_f
        @base = { memory: memory_interval.to_f, discover: discover_interval.to_f }
        @period = @base.dup
        @budget = budget.to_f
        @last = {}
        @proc_root = proc_root
        @stats = System::ProcStat::Handles.new(proc_root: proc_root)
        @machine = machine
        @clock = clock
        @cores = cores
        @samples = []
        @targets = []
        @known = {}
        @errors = []
      end

      # Roles of a booted ProcessControl::ServerInstance: the same processes as
      # Instance#processes, found by walking children from its roots.
      def self.roles_for(instance)
        lambda do
          roots = [instance.child.pid] + instance.adapter.extra_roots(instance.dir)
          procs = walk(roots) || instance.processes
          workers = instance.workers(procs)
          master = procs.select { |e| e.pid == instance.child.pid } - workers
          { "master" => master, "worker" => workers, "other" => procs - workers - master }
        end
      end

      # The roots and all their descendants (breadth-first) as
      # ProcessTree::Entry, nil when the kernel has no children files.
      def self.walk(roots, proc_root: "/proc")
        seen = {}
        queue = roots.dup
        out = []
        until queue.empty?
          pid = queue.shift
          next if seen[pid]

          seen[pid] = true
          entry = System::ProcessTree.read_stat(pid, proc_root: proc_root) or next
          kids = System::ProcStat.children(pid, proc_root: proc_root)
          return nil if kids.nil? && System::ProcessTree.read_stat(pid, proc_root: proc_root)

          out << entry
          queue.concat(kids || [])
        end
        out
      end

      def start
        raise Error, "sampler already started" if @loop

        @t0 = @clock.now
        @loop = Periodic.new(@interval, clock: @clock, after: -> { sample(memory: true) }) { sample }.start(at: @t0)
        self
      end

      # Stops the thread (after one last sample) and returns the TrialSummary.
      def stop
        @loop&.stop
        @stats.close
        summary
      end

      # Makes the next sample call roles again (e.g. right after the load generator started).
      def rediscover!
        @rediscover = true
      end

      def summary
        TrialSummary.new(samples: @samples.dup, interval: @interval, cores: @cores,
                         sampler_cpu_seconds: @loop&.cpu_seconds, errors: @errors.dup, missed_ticks: @loop&.missed || 0)
      end

      # Per-sample, per-process rows for samples.jsonl.
      def series
        summary.series
      end

      # Takes one sample now (the thread calls this; public for tests).
      # memory: read smaps too (default: when its period has passed).
      def sample(memory: nil)
        now = @clock.now
        @t0 ||= now
        discover(now) if @rediscover || due?(:discover, now)
        memory = due?(:memory, now) if memory.nil?
        readings, gone = memory ? budgeted(:memory, now) { read(true) } : read(false)
        unless gone.empty? # e.g. a restarted worker: find its successor in this sample
          discover(now)
          readings, gone = read(memory)
          forget(gone) # exited but not yet reaped: do not rediscover for it again
        end
        @samples << Sample.new(t: now - @t0, readings: readings, machine: @machine&.read)
      rescue StandardError => e
        @errors << "#{e.class}: #{e.message}" if @errors.size < 10 # it may fail at every tick
      end

      private

      # Half a tick of slack, so 0.1 s ticks read memory every 10th tick.
      def due?(what, now)
        @last[what].nil? || now - @last[what] >= @period[what] - @interval / 2
      end

      # Runs a costly pass and stretches its period so it stays within the budget (BUDGET) of one core.
      def budgeted(what, now)
        cpu = Clock.thread_cpu
        result = yield
        @last[what] = now
        @period[what] = [@base[what], (Clock.thread_cpu - cpu) / @budget].max
        result
      end

      def discover(now)
        @rediscover = false
        @targets = budgeted(:discover, now) { flatten(@roles.call) }
        @stats.keep(@targets.map(&:first))
      end

      # [readings, pids of server processes from the last discovery that are gone]
      def read(memory)
        gone = []
        readings = targets.filter_map do |pid, role, starttime|
          r = reading(pid, role, starttime, memory)
          gone << pid if r.nil? && role != CLIENT
          r
        end
        [readings, gone]
      end

      def targets
        return @targets unless @client

        @targets + Array(@client.call).filter_map do |entry|
          pid = pid_of(entry)
          [pid, CLIENT, starttime_of(entry)] unless @known.key?(pid)
        end
      end

      # [pid, role, starttime or nil] for each process, each pid once.
      def flatten(groups)
        @known = {}
        groups.flat_map do |role, entries|
          Array(entries).filter_map do |entry|
            pid = pid_of(entry)
            next if @known.key?(pid)

            @known[pid] = true
            [pid, role.to_s, starttime_of(entry)]
          end
        end
      end

      def forget(pids)
        @targets = @targets.reject { |pid, _| pids.include?(pid) }
      end

      def pid_of(entry)
        entry.respond_to?(:pid) ? entry.pid : Integer(entry)
      end

      def starttime_of(entry)
        entry.respond_to?(:starttime) ? entry.starttime : nil
      end

      def reading(pid, role, starttime, memory)
        stat = @stats.read(pid)
        return nil if stat.nil? || stat.state == "Z" || (starttime && starttime != stat.starttime)

        mem = memory && role != CLIENT ? System::Memory.read(pid, proc_root: @proc_root) : nil
        Reading.new(pid: pid, starttime: stat.starttime, role: role, cpu_seconds: stat.cpu_seconds,
                    threads: stat.threads, rss: mem ? mem.rss : stat.rss_bytes, pss: mem&.pss, uss: mem&.uss,
                    stopped: %w[T t].include?(stat.state))
      end
    end
  end
end
