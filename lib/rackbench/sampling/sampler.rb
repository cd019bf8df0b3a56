# frozen_string_literal: true

require "etc"
require_relative "../clock"
require_relative "../error"
require_relative "process_tree"
require_relative "proc_stat"
require_relative "memory"
require_relative "trial_summary"

module Rackbench
  module Sampling
    # Samples the processes of a trial in a background thread.
    #
    # Method:
    # - Rate: one sample every `interval` seconds, 10 Hz by default, so a 2 s
    #   trial still gets ~20 samples. Ticks follow the monotonic clock
    #   (Clock.now) on a fixed schedule t0 + k * interval: the thread sleeps
    #   until the next tick, so the time a sample takes does not drift the
    #   rate, and a tick missed because the machine was busy is skipped (and
    #   counted), not bunched up. #stop takes one last sample, so the window
    #   ends when the measurement ends. Cost: bench/sampler_overhead.rb
    #   (about 0.3% of one core for 10 processes, with the 1% target).
    # - Processes: `roles` is called at every sample, because workers can be
    #   restarted during a trial; processes are told apart by (pid,
    #   starttime), so a reused pid is a new process.
    # - CPU: utime + stime from /proc/PID/stat. The kernel counts them in
    #   clock ticks (10 ms), so one interval of one process is only good to
    #   +-10 percentage points at 10 Hz; over a trial the error is one tick
    #   per process at each end (±0.5% of a core for 4 s). CPU a process
    #   used before the sample that first sees it is not counted.
    # - Memory: PSS from smaps_rollup. PSS splits each shared page among the
    #   processes that map it, so the sum of PSS is the server's footprint;
    #   summed RSS counts the copy-on-write pages a preforked master shares
    #   with its workers once per worker, overstating it (both are reported).
    # - Limits: a process living less than one interval can be missed
    #   entirely; memory between samples is not seen (PSS max is the max of
    #   the samples, not a true peak); Linux only.
    class Sampler
      DEFAULT_INTERVAL = 0.1
      CLIENT = TrialSummary::CLIENT

      # roles: callable returning {role => [ProcessTree::Entry or pid, ...]}.
      # Roles: "master", "worker", "client" (the load generator) and any
      # other name for further server processes ("other"). A pid listed
      # twice is sampled once, under the first role listing it.
      def initialize(roles:, interval: DEFAULT_INTERVAL, proc_root: "/proc", clock: Clock, cores: Etc.nprocessors)
        raise ArgumentError, "interval must be positive, got #{interval.inspect}" unless interval.to_f.positive?

        @roles = roles
        @interval = interval.to_f
        @proc_root = proc_root
        @clock = clock
        @cores = cores
        @samples = []
        @errors = []
        @missed = 0
        @mutex = Mutex.new
        @wake = ConditionVariable.new
      end

      # Roles of a booted Server::Instance; client: root pids of the load
      # generator (Integer, Array or a callable returning them, read at each sample).
      def self.roles_for(instance, client: nil)
        lambda do
          procs = instance.processes
          workers = instance.workers(procs)
          master = procs.select { |e| e.pid == instance.child.pid } - workers
          roots = Array(client.respond_to?(:call) ? client.call : client)
          { "master" => master, "worker" => workers, "other" => procs - workers - master,
            CLIENT => roots.flat_map { |pid| ProcessTree.tree(pid) } }
        end
      end

      def start
        raise Error, "sampler already started" if @thread

        @stopping = false
        @t0 = @clock.now
        @thread = Thread.new { run }
        @thread.report_on_exception = false
        self
      end

      # Stops the thread (after one last sample) and returns the TrialSummary.
      def stop
        if @thread
          @mutex.synchronize do
            @stopping = true
            @wake.signal
          end
          @thread.join
        end
        summary
      end

      def summary
        TrialSummary.new(samples: @samples.dup, interval: @interval, cores: @cores,
                         sampler_cpu_seconds: @sampler_cpu, errors: @errors.dup, missed_ticks: @missed)
      end

      # Per-sample, per-process rows for samples.jsonl.
      def series
        summary.series
      end

      # Takes one sample now (the thread calls this; public for tests).
      def sample
        groups = @roles.call
        @t0 ||= @clock.now
        t = @clock.now - @t0
        @samples << Sample.new(t: t, readings: read(groups))
      rescue StandardError => e
        @errors << "#{e.class}: #{e.message}"
      end

      private

      def run
        cpu0 = thread_cpu
        tick = @t0
        loop do
          sample
          tick += @interval
          now = @clock.now
          while tick <= now
            tick += @interval
            @missed += 1
          end
          break if wait_until(tick)
        end
        sample
      ensure
        @sampler_cpu = thread_cpu - cpu0
      end

      # true when asked to stop.
      def wait_until(tick)
        @mutex.synchronize do
          until @stopping
            left = tick - @clock.now
            return false if left <= 0

            @wake.wait(@mutex, left)
          end
          true
        end
      end

      def read(groups)
        seen = {}
        groups.flat_map do |role, entries|
          Array(entries).filter_map do |entry|
            pid = entry.respond_to?(:pid) ? entry.pid : Integer(entry)
            next if seen[pid]

            seen[pid] = true
            reading(pid, role.to_s, entry.respond_to?(:starttime) ? entry.starttime : nil)
          end
        end
      end

      def reading(pid, role, starttime)
        stat = ProcStat.read(pid, proc_root: @proc_root)
        return nil if stat.nil? || stat.state == "Z" || (starttime && starttime != stat.starttime)

        mem = role == CLIENT ? nil : Memory.read(pid, proc_root: @proc_root)
        Reading.new(pid: pid, starttime: stat.starttime, role: role, cpu_seconds: stat.cpu_seconds,
                    threads: stat.threads, rss: mem ? mem.rss : stat.rss_bytes, pss: mem&.pss, uss: mem&.uss)
      end

      def thread_cpu
        Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
      end
    end
  end
end
