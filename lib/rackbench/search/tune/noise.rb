# frozen_string_literal: true

require_relative "../../stats/summary"

module Rackbench
  module Search
    class Tune
      # How far apart two single round-1 probes must be before the difference
      # counts (the noise band), per pair of setups.
      #
      # Measured: the coefficient of variation (CV) of the footprint probes,
      # repeated on this machine. A probe's throughput is a count of
      # responses, and its spread shrinks with how many it counted: a mix
      # where a fifth of the requests sleep 1 s (the arena's /random) varies by
      # 20% over 40 responses and by about 6% over 500. So the measured CV is
      # carried to other probes as CV x sqrt(n_measured / n_probe), n being
      # the median responses per probe (the sampling noise of a count; where
      # the machine's own noise dominates, the counts are alike and the CV
      # carries over unchanged).
      #
      # Band for a and b: 1.96 x sqrt(CV_a^2 + CV_b^2) (a two-sided 95%
      # z-test on the difference of two single probes), within [5%, 50%]
      # (a CV from 3 probes is itself rough). Without a measured CV: 5%.
      class Noise
        Z95 = 1.96
        MIN_BAND = 0.05
        MAX_BAND = 0.5

        # samples: [[cv, median responses per probe]] of the footprint probes.
        def initialize(samples)
          units = samples.filter_map { |cv, n| cv * Math.sqrt(n) if cv && n.to_f.positive? }
          @unit = units.empty? ? nil : Math.sqrt(units.sum { |u| u**2 } / units.size)
          @reference_n = Stats::Summary.of(samples.map(&:last).compact).median
        end

        # The band between two entries' probes (b omitted: a against a value
        # as noisy as a, e.g. a knee).
        def between(a, b = nil)
          width(cv(responses(a)), cv(responses(b || a)))
        end

        # The band at the footprint probes' own count, for display.
        def reference
          width(cv(@reference_n), cv(@reference_n))
        end

        private

        def width(cv_a, cv_b)
          return MIN_BAND unless cv_a && cv_b

          (Z95 * Math.sqrt(cv_a**2 + cv_b**2)).clamp(MIN_BAND, MAX_BAND)
        end

        def cv(n)
          return nil unless @unit && n.to_f.positive?

          @unit / Math.sqrt(n)
        end

        def responses(entry)
          Stats::Summary.of(entry.probes.map { |r| r["requests"] }).median
        end
      end
    end
  end
end
