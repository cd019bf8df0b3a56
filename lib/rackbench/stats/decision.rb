# frozen_string_literal: true

require_relative "student_t"
require_relative "error_budget"
require_relative "dependence"

module Rackbench
  module Stats
    # A decision between two setups on one metric, read from one interval,
    # on the ratio B / A worked on the log scale (a ratio's log is additive
    # and symmetric: 2x and 0.5x are equally far from 1).
    #
    # Paired (rounds of one run: every setup measured once per round, in a
    # random order, Abedi & Brecht, ICPE 2017): d_i = ln(b_i / a_i) per round;
    # the interval is mean(d) +- t(1 - alpha, n-1) * sd(d) / sqrt(n) (Student).
    # Unpaired (two runs made at different times, or rounds that cannot be
    # matched): d = mean(ln b) - mean(ln a), Welch's standard error and
    # Welch-Satterthwaite degrees of freedom.
    #
    # alpha, each side's miss probability, is the decision's ErrorBudget at
    # its look: 0.025 for one look and a family of one (the plain 95%
    # interval), less when the rate is shared over looks (--decide) and over
    # a family of decisions. The interval printed is that one: the outcome is
    # read from it, so the words and the interval cannot disagree.
    #
    # A spread floor: sd(d) is taken as at least SD_FLOOR per round (0.5%),
    # so identical repetitions give no certainty (a zero-width interval and
    # p = 0 from three equal numbers): rackbench's own req/s cannot be read
    # to better than that from a trial of a few seconds (bench/decision_replay.rb
    # prints the smallest per-round spread of real rounds here beside it).
    #
    # With an equivalence margin delta (default 5%), bounds L = ln(1 - delta)
    # and U = ln(1 + delta) on the log ratio, and the interval [lo, hi]:
    #   :higher / :lower   the interval lies wholly above U (below L): B differs
    #                      from A by more than delta (faster/slower);
    #   :equivalent        it lies wholly inside (L, U): two one-sided tests
    #                      (Schuirmann 1987) at alpha each;
    #   :direction_higher  it lies above 0 (no change) but reaches below U:
    #   / :direction_lower B is higher (lower) for certain, by more than delta
    #                      not yet;
    #   :undecided         it holds 0 and reaches beyond a bound;
    # with, unless decided, the rounds that would likely decide it: the n at
    # which the interval's half-width, at the budget's alpha for that look,
    # would fit between the observed mean and the nearer bound, the spread
    # assumed to stay as observed (an estimate, said as "about").
    class Decision
      DEFAULT_MARGIN = 0.05
      MAX_ROUNDS = 10_000
      SD_FLOOR = 0.005
      PAIRED = "paired rounds: Student's t on the per-round log ratios (95%)"
      UNPAIRED = "unpaired: Welch's t on the log values (95%)"
      DECIDED = %i[higher lower equivalent].freeze
      DIRECTION = { direction_higher: :higher, direction_lower: :lower }.freeze

      attr_reader :ratio, :ci_low, :ci_high, :ci_low_unadjusted, :ci_high_unadjusted, :margin, :rounds, :method,
                  :outcome, :rounds_needed, :budget, :look, :alpha, :dependence

      # a, b: the metric's values; paired: a[i] and b[i] come from round i.
      # budget: the decision's share of the rate (ErrorBudget); look: the
      # rounds at the look (the run's round count; default: the pair's).
      # nil when the values cannot be decided, or the design takes no look there.
      def self.of(a, b, paired:, margin: DEFAULT_MARGIN, budget: ErrorBudget.plain, look: nil)
        a = a.map(&:to_f)
        b = b.map(&:to_f)
        return nil if (a + b).any? { |v| !v.finite? || v <= 0 }

        stats = paired ? paired_stats(a, b, dependence: budget.looks.dependence?) : unpaired_stats(a, b)
        return nil unless stats

        look ||= stats[:n]
        return nil unless budget.alpha(look).positive?

        new(**stats, margin: margin, budget: budget, look: look)
      end

      # Two {round => value} maps as aligned value lists, over the rounds both
      # have, in round order (the pairing every paired decision starts from).
      def self.align(by_round_a, by_round_b)
        rounds = (by_round_a.keys & by_round_b.keys).sort
        [rounds.map { |r| by_round_a[r] }, rounds.map { |r| by_round_b[r] }]
      end

      def self.paired_stats(a, b, dependence: true)
        return nil if a.size != b.size || a.size < 2

        d = a.zip(b).map { |x, y| Math.log(y / x) }
        sd = [Math.sqrt(variance(d)), SD_FLOOR].max
        dependence = dependence ? Dependence.of(d) : nil
        se = sd / Math.sqrt(d.size) * (dependence ? dependence.inflation : 1.0)
        { mean: mean(d), se: se, df: d.size - 1, n: d.size, method: PAIRED, sd_per_round: sd, dependence: dependence }
      end

      def self.unpaired_stats(a, b)
        return nil if a.size < 2 || b.size < 2

        la = a.map { |v| Math.log(v) }
        lb = b.map { |v| Math.log(v) }
        va = [variance(la), SD_FLOOR**2].max / la.size
        vb = [variance(lb), SD_FLOOR**2].max / lb.size
        df = (va + vb)**2 / (va**2 / (la.size - 1) + vb**2 / (lb.size - 1))
        n = [la.size, lb.size].min
        { mean: mean(lb) - mean(la), se: Math.sqrt(va + vb), df: df, n: n, method: UNPAIRED,
          sd_per_round: Math.sqrt((va + vb) * n) }
      end

      # Student's t quantile, remembered for whole degrees of freedom (the
      # paired case: the looks of a run and a simulation ask the same few).
      QUANTILES = {}
      def self.t(p, df)
        return StudentT.quantile(p, df) unless df.is_a?(Integer)

        QUANTILES[[p, df]] ||= StudentT.quantile(p, df)
      end

      def self.mean(xs) = xs.sum / xs.size

      def self.variance(xs)
        m = mean(xs)
        xs.sum { |x| (x - m)**2 } / (xs.size - 1)
      end

      def initialize(mean:, se:, df:, n:, margin:, method:, sd_per_round:, budget:, look:, dependence: nil)
        @dependence = dependence
        @mean = mean
        @se = se
        @df = df
        @rounds = n
        @margin = margin
        @method = method
        @sd = sd_per_round
        @budget = budget
        @look = look
        @alpha = budget.alpha(look)
        @ratio = Math.exp(mean)
        @ci_low, @ci_high = interval(@alpha)
        @ci_low_unadjusted, @ci_high_unadjusted = interval((1 - 0.95) / 2)
        @outcome = decide
        @rounds_needed = DECIDED.include?(@outcome) ? nil : estimate_rounds
      end

      # The interval's two-sided confidence (0.95 for one look and a family of one).
      def confidence = 1 - 2 * @alpha

      def decided? = %i[higher lower].include?(@outcome)

      # The spread of one round's log ratio (its standard deviation, at
      # least SD_FLOOR), as a percentage of B/A: what the words say when the
      # interval is too wide to read, or the rounds ran out.
      def spread_pct = (Math.exp(@sd) - 1) * 100

      # :higher / :lower for a known direction, whether or not beyond the margin.
      def direction
        return @outcome if decided?

        DIRECTION[@outcome]
      end

      # The rounds could not decide it before the design's last look.
      def out_of_looks? = !DECIDED.include?(@outcome) && @rounds_needed.nil? && @budget.looks.sequential?

      def change_pct = (@ratio - 1) * 100
      def low_pct = (@ci_low - 1) * 100
      def high_pct = (@ci_high - 1) * 100

      def to_h
        { "ratio" => @ratio.round(4), "ci_low" => @ci_low.round(4), "ci_high" => @ci_high.round(4),
          "ci_low_unadjusted" => @ci_low_unadjusted.round(4), "ci_high_unadjusted" => @ci_high_unadjusted.round(4),
          "confidence" => confidence.round(6), "family_size" => @budget.family, "look" => @look,
          "margin" => @margin, "rounds" => @rounds, "method" => @method, "outcome" => @outcome.to_s,
          "rounds_needed" => @rounds_needed }.merge(@dependence ? @dependence.to_h : {}).compact
      end

      private

      # The spread a round, widened as the interval is when rounds depend on
      # each other (Stats::Dependence).
      def effective_sd = @sd * (@dependence ? @dependence.inflation : 1.0)

      def interval(alpha)
        half = self.class.t(1 - alpha, @df) * @se
        [Math.exp(@mean - half), Math.exp(@mean + half)]
      end

      def lower_bound = Math.log(1 - @margin)
      def upper_bound = Math.log(1 + @margin)

      def decide
        lo = Math.log(@ci_low)
        hi = Math.log(@ci_high)
        return :higher if lo > upper_bound
        return :lower if hi < lower_bound
        return :equivalent if lo > lower_bound && hi < upper_bound
        return :direction_higher if lo.positive?
        return :direction_lower if hi.negative?

        :undecided
      end

      # Rounds at which the interval's half-width, at the budget's alpha for
      # that look, would fit between the observed mean and the nearer bound,
      # the spread as observed. nil when the design's looks end first.
      def estimate_rounds
        gap = if @mean > upper_bound then @mean - upper_bound
              elsif @mean < lower_bound then lower_bound - @mean
              else [upper_bound - @mean, @mean - lower_bound].min
              end
        return MAX_ROUNDS if gap < 1e-9

        return sequential_rounds(gap) if @budget.looks.sequential?

        # One look: the condition holds from some n on (t's quantile and
        # 1/sqrt(n) both fall with n), so bisect for the first n.
        fits = ->(n) { self.class.t(1 - @alpha, n - 1) * effective_sd / Math.sqrt(n) < gap }
        low = @rounds
        return MAX_ROUNDS unless fits.call(MAX_ROUNDS)

        high = MAX_ROUNDS
        while high - low > 1
          mid = (low + high) / 2
          fits.call(mid) ? high = mid : low = mid
        end
        high
      end

      # Looks after every round: the first later look whose share fits, up
      # to the design's last (nil past it).
      def sequential_rounds(gap)
        ((@rounds + 1)..MAX_ROUNDS).each do |n|
          look = @look + (n - @rounds)
          return nil if look > @budget.looks.max

          alpha = @budget.alpha(look)
          return n if alpha.positive? && self.class.t(1 - alpha, n - 1) * effective_sd / Math.sqrt(n) < gap
        end
        MAX_ROUNDS
      end
    end
  end
end
