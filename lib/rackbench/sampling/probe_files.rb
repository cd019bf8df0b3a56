# frozen_string_literal: true

require "json"
require_relative "../clock"

module Rackbench
  module Sampling
    # Reads the arena probe's files (Workload::Arena::Probe: DIR/PID.json,
    # one per process that served a request) and turns two readings into
    # per-process deltas: requests served and GC runs/time during a trial.
    #
    # Method: a reading at the trial's start (the warm-up has made every
    # worker write its file) and one at its end; each process rewrites its
    # file every 0.1 s, so the end reading waits (up to FRESH_WAIT) until
    # every file is stamped after the load stopped, on the CLOCK_MONOTONIC
    # the probe stamps with. A process whose file is not fresh by then is
    # counted from its last file (a stale tail, marked "stale").
    class ProbeFiles
      FRESH_WAIT = 0.5

      def initialize(dir, clock: Clock)
        @dir = dir
        @clock = clock
      end

      # {pid => snapshot hash}; {} when the directory holds no file.
      def read
        Dir.glob(File.join(@dir, "*.json")).each_with_object({}) do |path, out|
          data = JSON.parse(File.read(path))
          out[data["pid"]] = data if data.is_a?(Hash) && data["pid"]
        rescue JSON::ParserError, SystemCallError
          next
        end
      end

      # A reading in which every file is stamped at or after `after` (or the wait ran out).
      def read_fresh(after)
        files = nil
        @clock.wait_until(@clock.now + FRESH_WAIT, every: 0.05) do
          files = read
          !files.empty? && files.values.all? { |f| f["t"].to_f >= after }
        end
        files
      end

      # The probe's running totals (apps/arena/probe.rb, probe_rails.rb), taken as differences.
      TOTALS = %w[requests wall_s cpu_s shared process_cpu_s runq_s gc_count gc_minor gc_major gc_time_ms sql_ms sql_count
                  view_ms view_count pool_samples pool_busy_sum pool_waiting_sum pool_waiting_samples].freeze
      # Readings taken as they are at the end.
      GAUGES = %w[pool_size].freeze

      # {pid => {TOTALS..., GAUGES..., "stale"}} between two readings; a
      # process absent from the first started during the trial (counted
      # from zero). A field the probe did not write (no Rails, an older
      # probe) is absent, not zero.
      def self.deltas(first, last, after)
        last.to_h do |pid, now|
          before = first[pid] || {}
          fields = TOTALS.select { |k| now.key?(k) }.to_h do |k|
            [k, now[k] && (now[k] - before.fetch(k, 0)).round(6)]
          end
          [pid, fields.merge(now.slice(*GAUGES)).merge("stale" => now["t"].to_f < after)]
        end
      end
    end
  end
end
