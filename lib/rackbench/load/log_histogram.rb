# frozen_string_literal: true

module Rackbench
  module Load
    # The log-linear latency histogram of lib/rackbench/load/wrk/histogram.lua,
    # in Ruby, so that histograms exported by wrk on several load hosts can be
    # read and added here. Same layout (keep the two in step):
    # - values in nanoseconds; below 1,024 ns one bucket per nanosecond;
    # - from 1,024 ns up, each power of two split into 512 equal sub-buckets
    #   (HdrHistogram's layout at 3 significant digits), a value reported as
    #   its bucket's midpoint: relative error <= 1/1024 (0.098%);
    # - the last power of two held is [2^37, 2^38) ns; above, the last bucket.
    # Counts are a Hash {bucket index => count}.
    module LogHistogram
      SUB = 512
      EXACT = 2 * SUB
      MAX_EXP = 38
      BUCKETS = EXACT + (MAX_EXP - 10) * SUB

      module_function

      def index(ns)
        return ns.positive? ? ns.floor : 0 if ns < EXACT

        m, e = Math.frexp(ns)
        return BUCKETS - 1 if e > MAX_EXP

        EXACT + (e - 11) * SUB + ((m * 2 - 1) * SUB).floor
      end

      # [lower bound, width] of bucket i, in ns.
      def bounds(i)
        return [i, 1] if i < EXACT

        octave, sub = (i - EXACT).divmod(SUB)
        base = 2.0**(octave + 10)
        width = base / SUB
        [base + sub * width, width]
      end

      def midpoint(i)
        lower, width = bounds(i)
        lower + width / 2.0
      end

      # Percentile p (0 < p <= 100) with HdrHistogram's rank rule (the
      # smallest bucket with at least ceil(p/100 x total) values at or below
      # it), as histogram.lua: the bucket's midpoint clamped to [min, max]
      # (exact extremes kept beside the histogram). nil when empty.
      def percentile(counts, p, min: nil, max: nil)
        total = counts.values.sum
        return nil unless total.positive?

        rank = [1, (p / 100.0 * total - 1e-9).ceil].max
        seen = 0
        counts.keys.sort.each do |i|
          seen += counts[i]
          next if seen < rank

          return midpoint(i).clamp(min || -Float::INFINITY, max || Float::INFINITY)
        end
        max
      end
    end
  end
end
