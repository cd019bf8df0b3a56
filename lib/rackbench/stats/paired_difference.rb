# frozen_string_literal: true

require_relative "decision"
require_relative "student_t"

module Rackbench
  module Stats
    # A paired per-round difference b_i - a_i (a frame's ms per request, a
    # counter per request: figures that may be 0 on one side, where the log
    # ratio Stats::Decision works on is undefined), with Student's t: the
    # mean difference, its interval mean +- t(1 - alpha/2, n-1) sd / sqrt(n),
    # and the two-sided p-value of "no change". The rounds pair as a
    # Decision's do (Decision.align), and its mean and variance are these.
    # A spread floor as Decision's SD_FLOOR: sd is taken as at least
    # SD_FLOOR of the larger side's mean (identical rounds give no certainty).
    class PairedDifference
      SD_FLOOR = Decision::SD_FLOOR

      attr_reader :a_mean, :b_mean, :mean, :n, :p, :se

      # a, b: {round => value}; nil with fewer than 2 common rounds.
      def self.of(a, b)
        xs, ys = Decision.align(a, b)
        return nil if xs.size < 2

        new(xs, ys)
      end

      def initialize(xs, ys)
        @n = xs.size
        @a_mean = Decision.mean(xs)
        @b_mean = Decision.mean(ys)
        d = xs.zip(ys).map { |x, y| y - x }
        @mean = Decision.mean(d)
        floor = SD_FLOOR * [@a_mean.abs, @b_mean.abs].max
        sd = [Math.sqrt(Decision.variance(d)), floor].max
        @se = sd / Math.sqrt(@n)
        @p = @se.zero? ? 1.0 : 2 * (1 - StudentT.cdf(@mean.abs / @se, @n - 1))
      end

      # [low, high] at the two-sided miss rate alpha.
      def interval(alpha)
        half = Decision.t(1 - alpha / 2.0, @n - 1) * @se
        [@mean - half, @mean + half]
      end
    end
  end
end
