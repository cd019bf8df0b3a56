# frozen_string_literal: true

module Rackbench
  module Search
    # Finds the highest load level that passes: doubling from a start level
    # until a level fails (or halving until one passes), then bisecting
    # between the last passing and the first failing level until they are
    # within `precision` of each other (or 1 apart for whole numbers), in at
    # most max_steps measured levels (benchmark-http's concurrency search,
    # judged by the caller on p99 and errors instead of mean latency).
    #
    # A level the caller answers :client (the load generator could not hold
    # it, Stats::Slo) says nothing about the server: the search stops there,
    # with the bracket found below it and `bound` that level (the machine,
    # not the server, ended the search).
    class Knee
      Step = Struct.new(:level, :pass, :detail, keyword_init: true)
      Result = Struct.new(:pass, :fail, :steps, :bound, keyword_init: true)

      def initialize(start:, min:, max:, integer:, max_steps: 10, precision: 0.1)
        @start = start
        @min = min
        @max = max
        @integer = integer
        @max_steps = max_steps
        @precision = precision
      end

      # measure: level -> [pass? (true, false or :client), detail]
      def find(&measure)
        @steps = []
        @bound = nil
        lo, hi = bracket(measure)
        lo, hi = bisect(lo, hi, measure) if lo && hi
        Result.new(pass: lo, fail: hi, steps: @steps, bound: @bound)
      end

      private

      def bracket(measure)
        lo = hi = nil
        level = @start
        while @steps.size < @max_steps
          passed = step(level, measure)
          break if @bound

          if passed
            lo = level
            break if hi || level >= @max

            level = clamp(level * 2)
          else
            hi = level
            break if lo || level <= @min

            level = clamp(@integer ? level / 2 : level / 2.0)
          end
        end
        [lo, hi]
      end

      def bisect(lo, hi, measure)
        while @steps.size < @max_steps && close_enough?(lo, hi) == false
          mid = @integer ? (lo + hi) / 2 : round((lo + hi) / 2.0)
          passed = step(mid, measure)
          break if @bound

          passed ? lo = mid : hi = mid
        end
        [lo, hi]
      end

      def close_enough?(lo, hi)
        (@integer && hi - lo <= 1) || hi <= lo * (1 + @precision)
      end

      def step(level, measure)
        pass, detail = measure.call(level)
        @bound = level if pass == :client
        @steps << Step.new(level: level, pass: pass == true, detail: detail)
        pass == true
      end

      def clamp(level)
        [[level, @min].max, @max].min
      end

      # Rates to 3 significant figures.
      def round(value)
        digits = 2 - Math.log10(value).floor
        value.round(digits.clamp(0, 6))
      end
    end
  end
end
