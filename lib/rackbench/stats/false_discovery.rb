# frozen_string_literal: true

module Rackbench
  module Stats
    # Benjamini & Hochberg (1995), "Controlling the false discovery rate", the
    # step-up procedure: of m tests, sorted by p-value, the k largest with
    # p(k) <= k q / m and every test before it are the discoveries; the
    # expected share of false ones among them is at most q (independent or
    # positively dependent tests: Benjamini & Yekutieli 2001). The intervals
    # printed beside the R discoveries are the false-coverage-rate adjusted
    # ones of Benjamini & Yekutieli (2005): level 1 - R q / m each, so the
    # named intervals miss at most q of the time, on average over them.
    module FalseDiscovery
      Q = 0.05

      module_function

      # The indexes of ps that are discoveries at rate q.
      def discoveries(ps, q: Q)
        m = ps.size
        order = ps.each_index.sort_by { |i| ps[i] }
        k = order.each_with_index.select { |i, rank| ps[i] <= (rank + 1) * q / m }.map(&:last).max
        k ? order.first(k + 1).sort : []
      end

      # The two-sided miss rate of each discovery's interval: R q / m
      # (the plain q when there is none).
      def interval_alpha(found, m, q: Q)
        found.zero? || m.zero? ? q : found * q / m
      end
    end
  end
end
