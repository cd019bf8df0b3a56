# frozen_string_literal: true

require_relative "looks"

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
        RATE / 2 * @looks.share(look) / @family
      end

      # The two-sided confidence of the interval at that look (0.95 plain).
      def confidence(look)
        1 - 2 * alpha(look)
      end

      def plain? = !@looks.sequential? && @family == 1
    end
  end
end
