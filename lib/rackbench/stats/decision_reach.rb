# frozen_string_literal: true

require_relative "decision"
require_relative "error_budget"
require_relative "looks"

module Rackbench
  module Stats
    # What run --decide's stopping rule can decide at all, asked before the
    # first round (Config::Rules::Decide): a pair that measures alike, its
    # per-round spread at Decision::SD_FLOOR, a family of one, is called
    # equivalent within the margin at a look after n rounds when that look's
    # half-width
    #   h(n) = t(1 - alpha(n), n - 1) * SD_FLOOR / sqrt(n)
    # is below the gap ln(1 + margin) (the nearer bound), alpha(n) the
    # look's share of the rate (ErrorBudget, Looks). A design (--repeat R,
    # --max-rounds N) can decide iff its narrowest look is below the gap.
    #
    # The narrowest look, without a quantile per look: the first look and
    # the last are computed; the looks between are bounded in blocks, a
    # block [lo, hi] by its largest alpha at hi rounds (t's quantile grows
    # with p and falls with the degrees of freedom, so no look of the block
    # is narrower), and only a block whose bound is below the best so far
    # is split. Exact whatever the looks' shares, in tens of quantiles.
    #
    # The smallest workable N, by doubling then bisection, exact because
    # the answer is monotone in N piece by piece: with N <= R the design is
    # one look at N rounds (t(0.975, N - 1) / sqrt(N) falls with N); past
    # R, the first look (at F = max(R, 3) rounds) spends g(F / N), less as
    # N grows, so it decides up to some N only, while of the other looks
    # the last is the narrowest and narrows as N grows (both measured, for
    # the shares ErrorBudget gives, by bench/decide_check_speed.rb: every N
    # to 10,000), so once the first look no longer decides, the design
    # decides from one N on. The old search tried every N with every look
    # (39 s for a margin of 0.1%, hours for 0.01%); bench/decide_check_speed.rb
    # prints both, and test/unit/stats/decision_reach_test.rb holds them equal.
    module DecisionReach
      module_function

      # --decide's design at --max-rounds max (Looks.for_config's): one look
      # when the planned rounds reach max, else a look after every round.
      def looks(repeat, max)
        [repeat, 1].max >= max ? Looks.fixed : Looks.sequential(first: repeat, max: max)
      end

      # The nearer equivalence bound's distance from no change.
      def gap(margin) = [Math.log(1 + margin), -Math.log(1 - margin)].min

      # Whether the design can decide anything within margin.
      def decides?(repeat:, margin:, max:)
        narrowest(repeat: repeat, max: max) < gap(margin)
      end

      # The narrowest half-width (log scale) over the design's looks at the
      # floor spread; infinite when it takes no look.
      def narrowest(repeat:, max:)
        looks = looks(repeat, max)
        ns = looks.looks_until(max)
        return Float::INFINITY if ns.empty?

        budget = ErrorBudget.new(looks: looks)
        alphas = ns.map { |n| budget.alpha(n) } # cheap beside a quantile
        half = ->(i) { width(alphas[i], ns[i]) }
        best = [half.call(0), half.call(ns.size - 1)].min
        lowest(1, ns.size - 2, best, ns, alphas, half)
      end

      # The half-width of a look after n rounds at alpha a side.
      def width(alpha, n)
        return Float::INFINITY unless alpha.positive?

        Decision.t(1 - alpha, n - 1) * Decision::SD_FLOOR / Math.sqrt(n)
      end

      # The best of best and the looks ns[lo..hi]: a block is computed only
      # when its bound, its largest alpha at its last look's rounds, is
      # below the best so far.
      def lowest(lo, hi, best, ns, alphas, half)
        return best if lo > hi
        return [best, half.call(lo)].min if lo == hi
        return best if width(alphas[lo..hi].max, ns[hi]) >= best

        mid = (lo + hi) / 2
        best = lowest(mid + 1, hi, best, ns, alphas, half) # the later looks first: the last is the narrowest
        lowest(lo, mid, best, ns, alphas, half)
      end

      # The smallest --max-rounds from `from` up to `limit` at which the
      # design can decide within margin; nil when none can.
      def smallest_max_rounds(repeat:, margin:, from: Looks::FIRST, limit: Decision::MAX_ROUNDS)
        works = ->(max) { decides?(repeat: repeat, margin: margin, max: max) }
        one_look = [repeat, 1].max # the largest max with a one-look design
        if from <= one_look
          found = first_working(from, [one_look, limit].min, works)
          return found if found

          from = one_look + 1
        end
        return nil if from > limit
        return from if works.call(from) # the first look may decide here and not past it

        first_working(from + 1, limit, works)
      end

      # The smallest n in lo..hi with works, where works holds from some n
      # on (nil: not by hi): doubling steps to a bracket, then bisection.
      def first_working(lo, hi, works)
        top = lo
        until works.call(top)
          return nil if top >= hi

          lo = top + 1
          top = [top * 2, hi].min
        end
        while lo < top
          mid = (lo + top) / 2
          works.call(mid) ? top = mid : lo = mid + 1
        end
        top
      end

      # The margin (a share) the design at max sits on: it decides within
      # any margin above this one, none at or below it.
      def smallest_margin(repeat:, max:)
        Math.exp(narrowest(repeat: repeat, max: max)) - 1
      end
    end
  end
end
