# frozen_string_literal: true

require "etc"
require_relative "machine_window"

module Rackbench
  module Sampling
    # One process as read at one sample. Memory fields are bytes (pss/uss
    # nil when smaps was not read, e.g. for the load generator).
    # stopped: the process was in state T (stopped by a signal, e.g. SIGSTOP,
    # or traced) when read.
    Reading = Struct.new(:pid, :starttime, :role, :cpu_seconds, :threads, :rss, :pss, :uss, :stopped, keyword_init: true) do
      def key
        [pid, starttime]
      end
    end
    # t: seconds since the sampler started (monotonic clock); machine: the
    # machine's CPU read in the same pass (MachineWindow::Reading, or nil).
    Sample = Struct.new(:t, :readings, :machine, keyword_init: true)

    # What the process samples of one trial add up to (see Sampler for the method).
    #
    # CPU %: the CPU seconds a role used between consecutive samples, counted
    # only for processes present in both (same pid and starttime, so a reused
    # pid is never mistaken for its predecessor), divided by the wall time
    # from the first to the last sample; 100 = one core busy. Memory: sums
    # over the server's processes (every role but "client") per sample that
    # read smaps, then mean (and max) over those samples; rss_max also uses
    # the RSS from stat in the other samples. MB means MiB (2^20 bytes).
    class TrialSummary
      CLIENT = "client"
      MB = 1024.0 * 1024

      attr_reader :samples, :interval, :cores, :sampler_cpu_seconds, :errors, :missed_ticks

      def initialize(samples:, interval:, cores: Etc.nprocessors, sampler_cpu_seconds: nil, errors: [],
                     missed_ticks: 0)
        @samples = samples
        @interval = interval
        @cores = cores
        @sampler_cpu_seconds = sampler_cpu_seconds
        @errors = errors
        @missed_ticks = missed_ticks
      end

      def duration
        samples.size < 2 ? 0.0 : samples.last.t - samples.first.t
      end

      # CPU % of one core used by the given roles (nil: all server roles);
      # nil when not measurable (fewer than two samples, role never seen).
      def cpu_pct(*roles)
        return nil if duration <= 0

        pick = roles.empty? ? ->(r) { r.role != CLIENT } : ->(r) { roles.include?(r.role) }
        return nil unless samples.any? { |s| s.readings.any?(&pick) }

        used = cpu_deltas.sum { |deltas| deltas.sum { |r, d| pick.call(r) ? d : 0.0 } }
        100.0 * used / duration
      end

      def machine_share(pct)
        pct && pct / (100.0 * cores)
      end

      # The machine's CPU over the samples' own window (MachineWindow.figures):
      # the trial record's "machine", or nil when a sample at either end has
      # no machine reading.
      def machine_h
        return nil if samples.size < 2

        MachineWindow.figures(samples.first.machine, samples.last.machine, wall_s: duration, cores: cores,
                              server_pct: cpu_pct, client_pct: cpu_pct(CLIENT),
                              processes: samples.flat_map { |s| s.readings.map(&:key) }.uniq.size)
      end

      # Mean (or max) over samples of the PSS summed over server processes, bytes.
      def pss_total(stat = :mean)
        aggregate(server_sums(:pss), stat)
      end

      def uss_total
        aggregate(server_sums(:uss), :mean)
      end

      def rss_sum
        aggregate(server_sums(:rss), :mean)
      end

      def rss_max
        server_readings.filter_map(&:rss).max
      end

      def pss_per_worker
        aggregate(readings_of("worker").filter_map(&:pss), :mean)
      end

      def pss_master
        aggregate(samples.filter_map { |s| sum_of(s.readings.select { |r| r.role == "master" }, :pss) }, :mean)
      end

      def threads_max
        samples.map { |s| s.readings.sum { |r| r.role == CLIENT ? 0 : r.threads.to_i } }.max
      end

      # Every worker process seen, as [pid, starttime] pairs.
      def workers_seen
        readings_of("worker").map(&:key).uniq
      end

      # Workers seen during the trial that were gone by the last sample:
      # each restart (or an exit without replacement) counts once.
      def worker_restarts
        return 0 if samples.empty?

        (workers_seen - samples.last.readings.select { |r| r.role == "worker" }.map(&:key)).size
      end

      # Server processes seen stopped (state T) in any sample: a server
      # frozen by SIGSTOP or a debugger answers nothing meanwhile.
      def stopped_pids
        server_readings.select(&:stopped).map(&:pid).uniq
      end

      # How much the server's summed RSS (read every tick, from stat) grew
      # over the trial, as a fraction of where it started (nil with fewer
      # than 4 samples). Compares the
      # mean of the first and last quarter of the samples, so one noisy
      # reading does not make a leak.
      def rss_growth
        sums = samples.filter_map { |s| sum_of(s.readings.reject { |r| r.role == CLIENT }, :rss) }
        return nil if sums.size < 4

        q = sums.size / 4
        first = sums.first(q).sum.to_f / q
        last = sums.last(q).sum.to_f / q
        first.positive? ? (last - first) / first : nil
      end

      # The sampler's own figures sit under "sampler", so that merging this
      # hash into a trial record never replaces the load engine's duration_s
      # or errors (the trial's duration is the engine's, not the sampler's).
      def to_h
        server = cpu_pct
        client = cpu_pct(CLIENT)
        h = { "sampler" => sampler_h,
              "memory" => memory_h,
              "cpu" => { "server_pct" => pct(server), "master_pct" => pct(cpu_pct("master")),
                         "workers_pct" => pct(cpu_pct("worker")), "client_pct" => pct(client),
                         "server_machine_share" => machine_share(server)&.round(4),
                         "client_machine_share" => machine_share(client)&.round(4),
                         "sampler_pct" => sampler_pct, "cores" => cores },
              "processes" => { "workers_seen" => workers_seen.size, "worker_restarts" => worker_restarts,
                               "threads_max" => threads_max, "stopped_pids" => stopped_pids,
                               "rss_growth" => rss_growth&.round(3) } }
        # A proxy in front (nginx, Thruster) is part of server_pct; its own share apart.
        proxy = cpu_pct("proxy")
        h["cpu"]["proxy_pct"] = pct(proxy) if proxy
        h
      end

      # One hash per sample for samples.jsonl; cpu_pct is nil for a process's first reading.
      def series
        cpu = cpu_deltas
        samples.each_with_index.map do |s, i|
          wall = i.zero? ? nil : s.t - samples[i - 1].t
          { "t" => s.t.round(3), "processes" => s.readings.map { |r| reading_h(r, cpu[i - 1], wall, i) } }
        end
      end

      private

      def sampler_h
        h = { "samples" => samples.size, "interval_s" => interval, "duration_s" => duration.round(3),
              "missed_ticks" => missed_ticks }
        h["errors"] = errors.uniq.first(3) unless errors.empty?
        h
      end

      def memory_h
        { "pss_total_mb" => mb(pss_total), "pss_total_max_mb" => mb(pss_total(:max)),
          "pss_per_worker_mb" => mb(pss_per_worker), "pss_master_mb" => mb(pss_master),
          "rss_sum_mb" => mb(rss_sum), "rss_max_mb" => mb(rss_max), "uss_total_mb" => mb(uss_total) }
      end

      def reading_h(reading, deltas, wall, index)
        d = index.zero? ? nil : deltas[reading]
        { "pid" => reading.pid, "role" => reading.role,
          "cpu_pct" => d && wall&.positive? ? (100.0 * d / wall).round(1) : nil,
          "threads" => reading.threads, "rss_bytes" => reading.rss, "pss_bytes" => reading.pss,
          "uss_bytes" => reading.uss }
      end

      # For each pair of consecutive samples: {reading in the later => CPU seconds since the earlier}.
      def cpu_deltas
        @cpu_deltas ||= samples.each_cons(2).map do |before, after|
          old = before.readings.to_h { |r| [r.key, r] }
          after.readings.each_with_object({}.compare_by_identity) do |r, out|
            prev = old[r.key]
            out[r] = [r.cpu_seconds - prev.cpu_seconds, 0.0].max if prev
          end
        end
      end

      def server_readings
        samples.flat_map { |s| s.readings.reject { |r| r.role == CLIENT } }
      end

      def readings_of(role)
        samples.flat_map { |s| s.readings.select { |r| r.role == role } }
      end

      # Per sample that read memory (smaps), the field summed over server processes.
      def server_sums(field)
        samples.filter_map do |s|
          server = s.readings.reject { |r| r.role == CLIENT }
          sum_of(server, field) if server.any?(&:pss)
        end
      end

      # nil when no reading has the field (so a sample without memory is not a zero).
      def sum_of(readings, field)
        values = readings.filter_map(&field)
        values.empty? ? nil : values.sum
      end

      def aggregate(values, stat)
        return nil if values.empty?

        stat == :max ? values.max : values.sum.to_f / values.size
      end

      def sampler_pct
        return nil unless sampler_cpu_seconds && duration.positive?

        (100.0 * sampler_cpu_seconds / duration).round(2)
      end

      def mb(bytes)
        bytes && (bytes / MB).round(2)
      end

      def pct(value)
        value&.round(1)
      end
    end
  end
end
