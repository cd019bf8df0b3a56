# frozen_string_literal: true

require_relative "student_t"

module Rackbench
  module Stats
    # Welch's unequal-variances t-test (Welch 1947), two-sided, on the
    # repetitions of one cell in two runs:
    #   t  = (mean_b - mean_a) / sqrt(s_a^2/n_a + s_b^2/n_b)
    #   df = (s_a^2/n_a + s_b^2/n_b)^2 /
    #        ((s_a^2/n_a)^2/(n_a-1) + (s_b^2/n_b)^2/(n_b-1))   (Welch-Satterthwaite)
    #   p  = 2 * (1 - F_t(|t|; df))
    # A difference is significant when p < alpha (default 0.05). It needs at
    # least 2 repetitions on each side; with fewer, test returns nil.
    module Welch
      ALPHA = 0.05
      METHOD = "Welch's t-test on the repetitions (two-sided, alpha = 0.05)"

      Result = Struct.new(:t, :df, :p, :alpha, keyword_init: true) do
        def significant?
          p < alpha
        end
      end

      module_function

      def test(a, b, alpha: ALPHA)
        a = a.compact.map(&:to_f)
        b = b.compact.map(&:to_f)
        return nil if a.size < 2 || b.size < 2

        va = variance(a) / a.size
        vb = variance(b) / b.size
        diff = mean(b) - mean(a)
        se = Math.sqrt(va + vb)
        return degenerate(diff, a.size + b.size - 2, alpha) if se.zero?

        t = diff / se
        df = (va + vb)**2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
        p = 2.0 * (1.0 - StudentT.cdf(t.abs, df))
        Result.new(t: t, df: df, p: p.clamp(0.0, 1.0), alpha: alpha)
      end

      # Both samples without spread: equal means cannot differ, unequal ones
      # differ with certainty (t is infinite).
      def degenerate(diff, df, alpha)
        return Result.new(t: 0.0, df: df, p: 1.0, alpha: alpha) if diff.zero?

        Result.new(t: diff.positive? ? Float::INFINITY : -Float::INFINITY, df: df, p: 0.0, alpha: alpha)
      end

      def mean(xs)
        xs.sum / xs.size
      end

      # Sample variance (n - 1 denominator).
      def variance(xs)
        m = mean(xs)
        xs.sum { |x| (x - m)**2 } / (xs.size - 1)
      end
    end
  end
end
