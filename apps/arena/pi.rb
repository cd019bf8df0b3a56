# frozen_string_literal: true

require_relative "params"
require_relative "response"

module Rackbench
  module Workload
    module Arena
      # GET /pi/:digits — pi to that many decimal places, as text "3.14159...".
      #
      # Method: Machin's formula pi = 16·arctan(1/5) − 4·arctan(1/239), each
      # arctan summed as a Taylor series in fixed-point Integers scaled by
      # 10^(digits + GUARD). Big-integer division makes it CPU- and
      # allocation-heavy (the seed study used 5000 digits). The GUARD digits
      # absorb the series' truncation errors; the result is truncated, not
      # rounded, to the requested number of digits.
      module Pi
        RANGE = (1..20_000).freeze
        GUARD = 10

        module_function

        def call(_env, raw)
          Response.text(digits(Params.integer(raw, RANGE, "digits")))
        end

        def digits(count)
          unity = 10**(count + GUARD)
          pi = 4 * ((4 * arccot(5, unity)) - arccot(239, unity))
          decimals = (pi / (10**GUARD)).to_s
          "#{decimals[0]}.#{decimals[1..]}"
        end

        # arctan(1/x)·unity = Σ (−1)^k · unity / ((2k+1)·x^(2k+1))
        def arccot(x, unity)
          x_squared = x * x
          power = unity / x
          sum = power
          k = 1
          until power.zero?
            power /= x_squared
            term = power / ((2 * k) + 1)
            sum += k.odd? ? -term : term
            k += 1
          end
          sum
        end
      end
    end
  end
end
