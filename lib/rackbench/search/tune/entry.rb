# frozen_string_literal: true

require_relative "../../stats/summary"
require_relative "racing"

module Rackbench
  module Search
    class Tune
      # One candidate setup and the evidence gathered on it so far: its
      # round-1 probes (closed loop), its open-loop knee (round 2) and its
      # confirmation runs (round 3), as stored trial records. Dropped
      # candidates keep the round, the reason and, when a test decided it,
      # which test (nil for a failed boot, the time budget or memory).
      Entry = Struct.new(:setup, :estimate_mb, :probes, :knee, :confirms, :records, :dropped, :dropped_in, :drop_test,
                         keyword_init: true) do
        def self.for(candidate)
          new(setup: candidate.setup, estimate_mb: candidate.estimate_mb, probes: [], confirms: [], records: [])
        end

        def label = setup.label
        def alive? = dropped.nil?

        def drop!(round, reason, test: nil)
          self.dropped = reason
          self.dropped_in = round
          self.drop_test = test
        end

        def add(records, into: nil)
          into&.concat(records)
          self.records.concat(records)
        end

        # Saturated throughput (closed loop): the median successful req/s of
        # the probes.
        def probe_rps
          Stats::Summary.of(probes.map { |r| r["goodput_rps"] || r["rps"] }).median
        end

        # The highest open-loop rate that met the SLO, and the lowest that
        # failed above it (nil when not searched, or nothing failed).
        def knee_rps = knee&.dig("pass")
        def knee_fail = knee&.dig("fail")
        # The rate the load generator could not hold, where its search stopped (ClientBound).
        def knee_bound = knee&.dig("bound")

        # The knee bracket's upper end: the failing level, or the search's
        # precision above the passing one when nothing failed.
        def knee_upper
          return nil unless knee_rps

          knee_fail || knee_rps * (1 + Racing::KNEE_PRECISION)
        end

        # Seconds an open-loop run provisions connections for: twice the
        # probes' median latency, between 50 ms and the SLO's p99 (the SLO's
        # p99 when nothing was probed).
        def expected_latency(slo)
          p50 = Stats::Summary.of(probes.map { |r| r.dig("latency_ms", "p50") }).median
          return slo.p99_ms / 1000.0 unless p50

          (2 * p50 / 1000.0).clamp(0.05, [slo.p99_ms / 1000.0, 0.05].max)
        end

        # PSS footprint: the median over every trial measured on it.
        def footprint_mb
          Stats::Summary.of(records.map { |r| r.dig("memory", "pss_total_mb") }).median
        end

        def to_row
          { "setup" => label, "server" => setup.server, "workers" => setup.workers, "threads" => setup.threads,
            "probe_rps" => probe_rps&.round(1), "knee_rps" => knee_rps, "knee_fail" => knee_fail,
            **(knee_bound ? { "knee_bound" => knee_bound } : {}), "footprint_mb" => footprint_mb&.round(1), "estimate_mb" => estimate_mb&.round(1),
            "dropped_in" => dropped_in, "dropped" => dropped }
        end
      end
    end
  end
end
