# frozen_string_literal: true

require_relative "looks"
require_relative "boundary"

module Rackbench
  module Stats
    # The false-decision rate one decision may spend: the run's rate
    # (RATE, two-sided; each side of an interval RATE / 2), shared out over
    # the looks (Stats::Looks: alpha spending) and over the family of
    # decisions it belongs to (Bonferroni: every hypothesis in the family,
    # decided or not, takes an equal part, Dunn 1961). By the union bound
    # the chance that any interval of the family, at any look, misses its
    # true ratio is at most RATE, so a wrong faster/slower/equivalent
    # anywhere in the family is at most RATE. The interval a decision
    # prints is the one at its budget: the words are read from it.
    #
    # Over the looks of a sequential design the decision's rate is not split
    # by the union bound but by the exact group-sequential boundary of the
    # same spending function (Stats::Boundary): each look's level is the one
    # at which the chance of a first miss there, having held at every look
    # before, is the look's share. Same rate, narrower intervals at every look
    # after the first; a design of more than Boundary::MAX_LOOKS looks keeps
    # the union bound (conservative).
    #
    # The boundary is exact for normal rounds of a known spread. With the
    # spread estimated at each look (Student's t at the look's nominal level,
    # Jennison & Turnbull's approximation) the rate it keeps is about 1.2x the
    # stated one: at 3 to 5 rounds t's heavy tails cross the boundary more
    # often than the normal does (simulated here, 20,000 to 100,000 runs a
    # design, normal rounds: the chance that any look's interval misses was
    # 5.5-6.0% for a stated 5%, 0.61% for 0.5%, 0.18% for 0.14%). So the
    # boundary is calibrated by simulation: it spends CALIBRATION of the
    # rate, which measured 4.6-5.0% for 5% (looks from 3 or 5 to 10, 20 or
    # 40 rounds), 0.50% for 0.5% and 0.13% for 0.14%. bench/decide_speed.rb
    # measures the rate through the whole --decide loop.
    CALIBRATION = 0.8
    #
    # Why Bonferroni and not Holm's step-down: Holm decides more, but its
    # decisions have no intervals of their own that match them (Strassburger
    # & Bretz, Statistics in Medicine 2008: Holm's compatible intervals are
    # Bonferroni's, or only a bound at the margin), and rackbench prints
    # each decision with the interval it was decided on.
    class ErrorBudget
      RATE = 0.05

      attr_reader :looks, :family

      # family: how many decisions share the rate (>= 1).
      def initialize(looks: Looks.fixed, family: 1)
        @looks = looks
        @family = [family.to_i, 1].max
      end

      # The plain budget: one look, a family of one (the 95% interval).
      def self.plain = new

      # One side's miss probability at a look after `look` rounds; 0.0 when
      # the design takes no look there.
      def alpha(look)
        union = RATE / 2 * @looks.share(look) / @family
        return union unless @looks.exact? && union.positive?

        nominal = exact
        nominal ? nominal.fetch(look, union) : union
      end

      # {look => alpha a side} of the exact boundary, or nil (too many looks).
      def exact
        return @exact if defined?(@exact)

        ns = @looks.looks_until(@looks.max)
        @exact = Boundary.nominal(ns, ns.map { |n| CALIBRATION * RATE * @looks.share(n) / @family })
      end

      # The two-sided confidence of the interval at that look (0.95 plain).
      def confidence(look)
        1 - 2 * alpha(look)
      end

      def plain? = !@looks.sequential? && @family == 1 && @looks.rate_share == 1
    end
  end
end
