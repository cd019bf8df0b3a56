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
    # least 2 repetitions on each side; with fewer, test returns nil. When
    # neither sample has any spread the standard error is 0 and t is
    # undefined (0/0) or infinite: the test cannot be done, and says so
    # (no_variance, p nil, never significant) instead of claiming p = 0 or 1.
    module Welch
      ALPHA = 0.05
      METHOD = "Welch's t-test on the repetitions (two-sided, alpha = 0.05)"
      NO_VARIANCE = "no variance: cannot test"

      Result = Struct.new(:t, :df, :p, :alpha, :no_variance, keyword_init: true) do
        def significant?
          !p.nil? && p < alpha
        end

        def no_variance?
          no_variance == true
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
        return Result.new(df: a.size + b.size - 2, alpha: alpha, no_variance: true) if se.zero?

        t = diff / se
        df = (va + vb)**2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
        p = 2.0 * (1.0 - StudentT.cdf(t.abs, df))
        Result.new(t: t, df: df, p: p.clamp(0.0, 1.0), alpha: alpha)
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
