# frozen_string_literal: true

module Rackbench
  module Stats
    # Whether a paired decision's rounds are what its interval assumes:
    # per-round log ratios independent of each other and roughly symmetric.
    # Read from the ratios in measured order (round 1, 2, ...) once there are
    # MIN_ROUNDS of them:
    #
    #   lag1  the lag-1 autocorrelation, sum (d_i - m)(d_i+1 - m) / sum (d_i - m)^2,
    #         corrected for its small-sample bias (about -(1 + 4 r) / n for
    #         AR(1) rounds: Kendall 1954, Marriott & Pope 1954) as
    #         r + (1 + 4 r) / n;
    #   skew  the sample skewness (Fisher-Pearson, adjusted: G1).
    #
    # Dependence is found when the raw lag-1 autocorrelation is beyond what
    # independent rounds give one time in twenty: above -1/n + Z / sqrt(n)
    # (its mean and spread under independence, Z the one-sided 95% normal
    # quantile; 0.42 at 10 rounds, 0.32 at 20). Found, it widens the
    # interval: the standard error of the mean of AR(1) rounds is
    # sd / sqrt(n) x sqrt((1 + r) / (1 - r)), so the decision's standard error
    # is multiplied by that factor at the corrected lag1, capped at CAP.
    # Otherwise nothing changes: a first rule (widen whenever the corrected
    # estimate passed 0.2) widened about a quarter of independent runs and
    # cost them rounds (bench/decide_speed.rb), and within 20 rounds no rule
    # can tell AR(1) 0.2 from independence (the estimate's spread is about
    # 0.2): that case is what the union bound's slack over the looks covers
    # (Stats::Looks).
    # Skew is stated, and warned of beyond SKEW_WARN, not corrected: the
    # bench measures what it does to the rate.
    #
    # Limits: a run's own rounds see dependence only roughly (at 20 rounds
    # the estimate's spread is about 0.2); an assumption nothing in one run
    # can check (a drift that moves both setups alike is removed by pairing,
    # one that moves them differently is not) is stated in docs/methodology.md.
    class Dependence
      MIN_ROUNDS = 8
      Z = 1.6448536269514722 # the one-sided 95% normal quantile
      CAP = 0.8
      SKEW_WARN = 1.5

      attr_reader :lag1, :skew

      # d: per-round log ratios in measured order. nil below MIN_ROUNDS.
      def self.of(d)
        return nil if d.size < MIN_ROUNDS

        new(d)
      end

      def initialize(d)
        n = d.size
        m = d.sum / n
        dev = d.map { |x| x - m }
        ss = dev.sum { |x| x * x }
        if ss <= 0
          @lag1 = 0.0
          @skew = 0.0
          @dependent = false
          return
        end

        r = dev.each_cons(2).sum { |x, y| x * y } / ss
        @dependent = r > -1.0 / n + Z / Math.sqrt(n)
        @lag1 = (r + (1 + 4 * r) / n).clamp(-1.0, 1.0)
        g1 = (dev.sum { |x| x**3 } / n) / ((ss / n)**1.5)
        @skew = g1 * Math.sqrt(n * (n - 1)) / (n - 2)
      end

      def dependent? = @dependent

      # The factor the standard error is multiplied by (1 when independent).
      def inflation
        return 1.0 unless dependent?

        r = @lag1.clamp(0.0, CAP)
        Math.sqrt((1 + r) / (1 - r))
      end

      def skewed? = @skew.abs > SKEW_WARN

      def to_h
        { "lag1_autocorrelation" => @lag1.round(3), "skew" => @skew.round(3), "se_inflation" => inflation.round(3) }
      end

      # A sentence for the run's warnings, or nil.
      def warning
        words = []
        words << format("rounds that follow each other are alike (lag-1 autocorrelation %.2f): the interval is widened " \
                        "%.2fx", @lag1, inflation) if dependent?
        words << format("rounds skewed (skewness %.1f): a few rounds far off one side", @skew) if skewed?
        words.empty? ? nil : words.join("; ")
      end
    end
  end
end
