# frozen_string_literal: true

module Rackbench
  module Stats
    # Summary of one cell's repetitions: n, median, mean, standard deviation,
    # coefficient of variation. Median uses the usual midpoint of the two
    # middle values for even n.
    #
    # Made positionally (a keyword-initialised Struct builds a Hash for each
    # one), and one Float is taken as it is: a report of a 100,000-cell run
    # makes some 2 million Summaries, most of one value (issue 46).
    Summary = Struct.new(:n, :median, :mean, :stdev, :min, :max) do
      def self.of(values)
        xs = values.size == 1 && values[0].is_a?(Float) ? values : values.compact.map(&:to_f).sort
        return new(0) if xs.empty?

        mean = xs.sum / xs.size
        var = xs.size > 1 ? xs.sum { |x| (x - mean)**2 } / (xs.size - 1) : 0.0
        mid = xs.size / 2
        median = xs.size.odd? ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2.0
        new(xs.size, median, mean, Math.sqrt(var), xs.first, xs.last)
      end

      # Coefficient of variation (sample stdev / mean); nil for one value.
      def cv
        return nil if n.to_i < 2 || mean.to_f.zero?

        stdev / mean
      end
    end
  end
end
