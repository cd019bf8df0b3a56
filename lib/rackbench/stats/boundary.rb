# frozen_string_literal: true

module Rackbench
  module Stats
    # Exact two-sided group-sequential boundaries for an alpha-spending
    # design (Lan & DeMets 1983), by recursive numerical integration
    # (Armitage, McPherson & Rowe 1969; Jennison & Turnbull, Group Sequential
    # Methods, 2000, ch. 19).
    #
    # The looks are at n_1 < n_2 < ... < n_K rounds (information I_k = n_k).
    # Under no difference the score S_k (the sum of the per-round log ratios,
    # scaled to unit variance a round) is a Gaussian random walk: S_k ~
    # N(0, I_k) with independent increments. Look k's boundary c_k (on the
    # Z_k = S_k / sqrt(I_k) scale) is the one at which the chance of first
    # crossing +-c_k at look k, having stayed inside at every look before, is
    # exactly the rate the spending function gives look k:
    #
    #   P(|Z_j| < c_j for j < k, |Z_k| >= c_k) = rate x (g(t_k) - g(t_k-1)).
    #
    # The density of S_k on the region still inside is carried from look to
    # look by convolution with the increment's normal density, integrated by
    # Simpson's rule on POINTS points, and c_k is found by bisection. Each
    # look's nominal level, 1 - Phi(c_k) a side, is then used as that look's
    # miss probability a side: its repeated confidence interval (Jennison &
    # Turnbull 1989) is Student's t at that level, so the intervals of all the
    # looks hold together with the stated rate (exact for normal rounds with a
    # known spread; with the spread estimated, Student's t at the nominal level
    # is Jennison & Turnbull's §11 approximation, measured in
    # bench/decision_replay.rb). Against the union bound (each look at its
    # share alone), the exact boundary counts that a later look can only miss
    # where no earlier one did, so each look's interval is narrower at the
    # same rate: the last of 18 looks is about 1.3x a single look's
    # half-width, against 1.6x.
    #
    # Limits: more than MAX_LOOKS looks are not integrated (the union bound is
    # kept there: conservative, never above the rate); the boundary assumes
    # rounds independent of each other (Stats::Dependence checks that).
    class Boundary
      POINTS = 61 # Simpson points across the region still inside, per look (121 and 201 agree to 1e-6)
      MAX_LOOKS = 60
      SQRT_2PI = Math.sqrt(2 * Math::PI)

      @cache = {}
      class << self
        # The nominal miss probability a side at each look, {n => alpha}, for
        # looks at ns (increasing round counts) spending increments[k] of the
        # two-sided rate at look k. nil when there are too many looks.
        def nominal(ns, increments)
          return nil if ns.size > MAX_LOOKS

          key = [ns, increments.map { |x| x.round(15) }]
          @cache[key] ||= new(ns, increments).nominal.freeze
        end
      end

      def initialize(ns, increments)
        @ns = ns.map(&:to_f)
        @increments = increments
      end

      def nominal
        grid = nil # [points s, density f(s)] of S_k on the region still inside
        prev_info = 0.0
        @ns.each_with_index.to_h do |info, k|
          spend = @increments[k]
          delta = info - prev_info
          c = boundary(grid, info, delta, spend)
          grid = carry(grid, info, delta, c)
          prev_info = info
          [info.to_i, c.finite? ? 1 - phi(c) : 0.0]
        end
      end

      private

      # The c at which the chance of first crossing at this look is spend.
      def boundary(grid, info, delta, spend)
        return Float::INFINITY if spend <= 0

        lo = 0.0
        hi = 40.0
        50.times do
          mid = (lo + hi) / 2
          crossing(grid, info, delta, mid) > spend ? lo = mid : hi = mid
        end
        (lo + hi) / 2
      end

      # P(stayed inside before, |Z| >= c now).
      def crossing(grid, info, delta, c)
        b = c * Math.sqrt(info)
        return 2 * (1 - phi(c)) if grid.nil?

        sd = Math.sqrt(delta)
        simpson(grid) { |u, f| f * (phi((-b - u) / sd) + 1 - phi((b - u) / sd)) }
      end

      # The density of S on (-c sqrt(I), c sqrt(I)) after this look.
      def carry(grid, info, delta, c)
        b = c.finite? ? c * Math.sqrt(info) : 12 * Math.sqrt(info)
        points = Array.new(POINTS) { |i| -b + 2 * b * i / (POINTS - 1) }
        return [points, points.map { |s| density(s, info) }] if grid.nil?

        sd = Math.sqrt(delta)
        [points, points.map { |s| simpson(grid) { |u, f| f * density(s - u, sd * sd) } }]
      end

      def simpson(grid)
        points, values = grid
        h = points[1] - points[0]
        last = points.size - 1
        sum = 0.0
        points.each_with_index do |u, i|
          w = i.zero? || i == last ? 1 : (i.odd? ? 4 : 2)
          sum += w * yield(u, values[i])
        end
        sum * h / 3
      end

      def density(x, variance) = Math.exp(-x * x / (2 * variance)) / (SQRT_2PI * Math.sqrt(variance))

      def phi(z) = 0.5 * Math.erfc(-z / Math.sqrt(2))
    end
  end
end
