# frozen_string_literal: true

module Rackbench
  module Stats
    # Student's t distribution, computed here so rackbench needs no statistics
    # gem. The CDF uses the regularized incomplete beta function,
    #   F(t; v) = 1 - I_x(v/2, 1/2) / 2  for t >= 0, x = v / (v + t^2)
    # (Abramowitz & Stegun 26.7.1), with I_x evaluated by its continued
    # fraction and the modified Lentz algorithm (Numerical Recipes, 6.4).
    # The quantile inverts the CDF by bisection.
    module StudentT
      EPSILON = 1e-15
      TINY = 1e-300
      MAX_TERMS = 500

      module_function

      # P(T <= t) for T ~ t(df); df may be fractional (Welch's df is).
      def cdf(t, df)
        raise ArgumentError, "degrees of freedom must be positive, got #{df}" unless df.positive?
        return 1.0 if t == Float::INFINITY
        return 0.0 if t == -Float::INFINITY

        t = t.to_f
        df = df.to_f
        tail = 0.5 * incomplete_beta(df / (df + t * t), df / 2.0, 0.5)
        t >= 0 ? 1.0 - tail : tail
      end

      # The t with P(T <= t) = p, e.g. quantile(0.975, 10) = 2.228.
      def quantile(p, df)
        raise ArgumentError, "probability must be in (0, 1), got #{p}" unless p.positive? && p < 1
        return -quantile(1 - p, df) if p < 0.5

        low = 0.0
        high = 1.0
        high *= 2 while cdf(high, df) < p
        200.times do
          mid = (low + high) / 2
          cdf(mid, df) < p ? low = mid : high = mid
          break if high - low < 1e-12 * [1.0, high].max
        end
        (low + high) / 2
      end

      # Regularized incomplete beta I_x(a, b).
      def incomplete_beta(x, a, b)
        return 0.0 if x <= 0
        return 1.0 if x >= 1

        log_front = Math.lgamma(a + b)[0] - Math.lgamma(a)[0] - Math.lgamma(b)[0] +
                    a * Math.log(x) + b * Math.log(1 - x)
        # The continued fraction converges fast for x < (a+1)/(a+b+2); use the
        # symmetry I_x(a, b) = 1 - I_{1-x}(b, a) otherwise.
        if x < (a + 1) / (a + b + 2)
          Math.exp(log_front) * beta_fraction(x, a, b) / a
        else
          1.0 - Math.exp(log_front) * beta_fraction(1 - x, b, a) / b
        end
      end

      # Continued fraction for I_x(a, b) (Numerical Recipes' betacf), by the
      # modified Lentz method.
      def beta_fraction(x, a, b)
        c = 1.0
        d = nonzero(1.0 - (a + b) * x / (a + 1))
        d = 1.0 / d
        h = d
        (1..MAX_TERMS).each do |m|
          m2 = 2 * m
          even = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
          d = 1.0 / nonzero(1.0 + even * d)
          c = nonzero(1.0 + even / c)
          h *= d * c
          odd = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
          d = 1.0 / nonzero(1.0 + odd * d)
          c = nonzero(1.0 + odd / c)
          delta = d * c
          h *= delta
          break if (delta - 1.0).abs < EPSILON
        end
        h
      end

      def nonzero(value)
        value.abs < TINY ? TINY : value
      end
    end
  end
end
