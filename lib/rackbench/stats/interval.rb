# frozen_string_literal: true

require_relative "student_t"

module Rackbench
  module Stats
    # A 95% confidence interval for the mean of a cell's repetitions:
    # Student's t-interval, mean +/- t(0.975, n-1) * s / sqrt(n), with s the
    # sample standard deviation. It needs n >= 2 (nil otherwise) and assumes
    # repetitions are independent and roughly normal; with 2 or 3 repetitions
    # it is honest but wide (t(0.975, 1) = 12.7). With floor: the interval is
    # truncated there (req/s, latency and memory cannot be negative). Reports
    # show the median as the point and this interval as its spread.
    Interval = Struct.new(:low, :high, :level, :n, keyword_init: true) do
      def self.description
        "Student's t-interval (95%) on the mean of the repetitions"
      end

      def self.of(values, level: 0.95, floor: nil)
        xs = values.compact.map(&:to_f)
        return nil if xs.size < 2

        mean = xs.sum / xs.size
        sd = Math.sqrt(xs.sum { |x| (x - mean)**2 } / (xs.size - 1))
        half = StudentT.quantile(1 - (1 - level) / 2, xs.size - 1) * sd / Math.sqrt(xs.size)
        low = mean - half
        low = [low, floor].max if floor
        new(low: low, high: mean + half, level: level, n: xs.size)
      end

      def to_h
        { "low" => low, "high" => high, "level" => level, "method" => "student-t" }
      end
    end
  end
end
