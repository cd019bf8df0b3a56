# frozen_string_literal: true

require_relative "student_t"

module Rackbench
  module Stats
    # A decision between two setups on one metric, in three honest outcomes,
    # from the ratio B / A worked on the log scale (a ratio's log is additive
    # and symmetric: 2x and 0.5x are equally far from 1).
    #
    # Paired (rounds of one run: every setup measured once per round, in a
    # random order, Abedi & Brecht, ICPE 2017): d_i = ln(b_i / a_i) per round;
    # the 95% interval is mean(d) +- t(0.975, n-1) * sd(d) / sqrt(n) (Student).
    # Unpaired (two runs made at different times, or rounds that cannot be
    # matched): d = mean(ln b) - mean(ln a), Welch's standard error and
    # Welch-Satterthwaite degrees of freedom.
    #
    # With an equivalence margin delta (default 5%), bounds L = ln(1 - delta)
    # and U = ln(1 + delta) on the log ratio:
    #   faster/slower  (here: :higher/:lower) the whole 95% interval lies
    #                  above U (or below L): B differs from A by more than delta;
    #   :equivalent    the whole 95% interval lies inside (L, U): two one-sided
    #                  tests (Schuirmann 1987) at alpha = 0.025 each;
    #   :undecided     otherwise, with the rounds that would likely decide it:
    #                  the n at which t * sd / sqrt(n) would fit between the
    #                  observed mean and the nearer bound, the spread assumed
    #                  to stay as observed (an estimate, said as "about").
    # p_value is the one-sided p of the outcome's own test (for :undecided,
    # the smaller of the three), so a family of decisions can be held to a
    # false-decision rate together (Holm).
    class Decision
      LEVEL = 0.95
      DEFAULT_MARGIN = 0.05
      MAX_ROUNDS = 10_000
      PAIRED = "paired rounds: Student's t on the per-round log ratios (95%)"
      UNPAIRED = "unpaired: Welch's t on the log values (95%)"

      attr_reader :ratio, :ci_low, :ci_high, :margin, :rounds, :method, :outcome, :p_value, :rounds_needed

      # a, b: the metric's values; paired: a[i] and b[i] come from round i.
      def self.of(a, b, paired:, margin: DEFAULT_MARGIN)
        a = a.map(&:to_f)
        b = b.map(&:to_f)
        return nil if (a + b).any? { |v| !v.finite? || v <= 0 }

        paired ? paired_of(a, b, margin) : unpaired_of(a, b, margin)
      end

      # Two {round => value} maps as aligned value lists, over the rounds both
      # have, in round order (the pairing every paired decision starts from).
      def self.align(by_round_a, by_round_b)
        rounds = (by_round_a.keys & by_round_b.keys).sort
        [rounds.map { |r| by_round_a[r] }, rounds.map { |r| by_round_b[r] }]
      end

      def self.paired_of(a, b, margin)
        return nil if a.size != b.size || a.size < 2

        d = a.zip(b).map { |x, y| Math.log(y / x) }
        new(mean: mean(d), se: Math.sqrt(variance(d) / d.size), df: d.size - 1, n: d.size, margin: margin,
            method: PAIRED, sd_per_round: Math.sqrt(variance(d)))
      end

      def self.unpaired_of(a, b, margin)
        return nil if a.size < 2 || b.size < 2

        la = a.map { |v| Math.log(v) }
        lb = b.map { |v| Math.log(v) }
        va = variance(la) / la.size
        vb = variance(lb) / lb.size
        df = va + vb > 0 ? (va + vb)**2 / (va**2 / (la.size - 1) + vb**2 / (lb.size - 1)) : la.size + lb.size - 2
        n = [la.size, lb.size].min
        new(mean: mean(lb) - mean(la), se: Math.sqrt(va + vb), df: df, n: n, margin: margin, method: UNPAIRED,
            sd_per_round: Math.sqrt((va + vb) * n))
      end

      def self.mean(xs) = xs.sum / xs.size

      def self.variance(xs)
        m = mean(xs)
        xs.sum { |x| (x - m)**2 } / (xs.size - 1)
      end

      def initialize(mean:, se:, df:, n:, margin:, method:, sd_per_round:)
        @mean = mean
        @se = se
        @df = df
        @rounds = n
        @margin = margin
        @method = method
        @sd = sd_per_round
        half = StudentT.quantile((1 + LEVEL) / 2, df) * se
        @ratio = Math.exp(mean)
        @ci_low = Math.exp(mean - half)
        @ci_high = Math.exp(mean + half)
        @outcome = decide
        @p_value = p_for(@outcome)
        @rounds_needed = @outcome == :undecided ? estimate_rounds : nil
      end

      # Holm's step-down over a family: sort by p, the i-th smallest (of m) keeps
      # its outcome only while p <= alpha / (m - i + 1); from the first that
      # fails on, every decision becomes :undecided. alpha: the family's
      # two-sided level split as each outcome's one-sided test was (0.025).
      def self.holm(decisions, alpha: (1 - LEVEL) / 2)
        family = decisions.compact.reject { |d| d.outcome == :undecided }
        m = family.size
        failed = false
        family.sort_by(&:p_value).each_with_index do |d, i|
          failed ||= d.p_value > alpha / (m - i)
          d.undecide!(m) if failed
        end
        decisions
      end

      def undecide!(family_size)
        @held_by = family_size
        @outcome = :undecided
        @rounds_needed = estimate_rounds
      end

      # The family size when Holm's method turned a decision into :undecided.
      attr_reader :held_by

      def change_pct = (@ratio - 1) * 100
      def low_pct = (@ci_low - 1) * 100
      def high_pct = (@ci_high - 1) * 100

      def to_h
        { "ratio" => @ratio.round(4), "ci_low" => @ci_low.round(4), "ci_high" => @ci_high.round(4),
          "margin" => @margin, "rounds" => @rounds, "method" => @method, "outcome" => @outcome.to_s,
          "p" => @p_value&.round(5), "rounds_needed" => @rounds_needed, "held_by_holm" => @held_by }.compact
      end

      private

      def lower_bound = Math.log(1 - @margin)
      def upper_bound = Math.log(1 + @margin)

      def decide
        return :higher if Math.log(@ci_low) > upper_bound
        return :lower if Math.log(@ci_high) < lower_bound
        return :equivalent if Math.log(@ci_low) > lower_bound && Math.log(@ci_high) < upper_bound

        :undecided
      end

      # One-sided p of "the log ratio is beyond U" (higher), "... below L"
      # (lower), and TOST's larger p (equivalent).
      def p_for(outcome)
        return 0.0 if @se.zero?

        higher = 1 - StudentT.cdf((@mean - upper_bound) / @se, @df)
        lower = StudentT.cdf((@mean - lower_bound) / @se, @df)
        tost = [1 - StudentT.cdf((@mean - lower_bound) / @se, @df), StudentT.cdf((@mean - upper_bound) / @se, @df)].max
        { higher: higher, lower: lower, equivalent: tost }.fetch(outcome) { [higher, lower, tost].min }
      end

      # Rounds at which the interval's half-width would fit between the
      # observed mean and the nearer bound, the spread as observed.
      def estimate_rounds
        return nil if @sd.zero?

        gap = if @mean > upper_bound then @mean - upper_bound
              elsif @mean < lower_bound then lower_bound - @mean
              else [upper_bound - @mean, @mean - lower_bound].min
              end
        return MAX_ROUNDS if gap < 1e-9

        # The normal approximation first, then up by t's heavier tails.
        n = [((1.96 * @sd / gap)**2).ceil, 2].max
        n += 1 until n >= MAX_ROUNDS || StudentT.quantile((1 + LEVEL) / 2, n - 1) * @sd / Math.sqrt(n) < gap
        [n, MAX_ROUNDS].min
      end
    end
  end
end
