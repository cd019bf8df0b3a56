# frozen_string_literal: true

module Rackbench
  module Stats
    # The CPU-speed calibrations of two runs (calibration.jsonl, taken by
    # Rackbench::Calibration at the start and end of each measuring command)
    # set side by side for `rackbench compare`:
    #
    # - between: B's speed against A's, each run's speed the mean of its
    #   readings (iterations of fib(22) per CPU-second); reported when they
    #   differ by more than the margin (|B/A - 1| > margin);
    # - drift: within one run, the fastest reading against the slowest;
    #   reported when it exceeds 1 + margin.
    #
    # A run without readings (made before calibrations existed, or whose
    # calibration failed) takes part in neither: nothing is said about it.
    # The readings themselves vary by several percent under load (see
    # Calibration), so these findings are a caution, not a correction:
    # nothing is rescaled by them.
    class CpuSpeed
      Drift = Struct.new(:run, :readings, :ratio, keyword_init: true)
      Between = Struct.new(:a, :b, :ratio, keyword_init: true)

      # readings_a, readings_b: the runs' calibration.jsonl lines.
      def initialize(readings_a, readings_b, margin:)
        @a = speeds(readings_a)
        @b = speeds(readings_b)
        @margin = margin
      end

      # Between or nil.
      def between
        return nil if @a.empty? || @b.empty?

        a = mean(@a.map(&:last))
        b = mean(@b.map(&:last))
        ratio = b / a
        (ratio - 1).abs > @margin ? Between.new(a: a, b: b, ratio: ratio) : nil
      end

      # [Drift] for the runs ("A", "B") whose speed moved by more than the margin.
      def drifts
        [["A", @a], ["B", @b]].filter_map do |run, readings|
          next if readings.size < 2

          values = readings.map(&:last)
          ratio = values.max / values.min
          Drift.new(run: run, readings: readings, ratio: ratio) if ratio - 1 > @margin
        end
      end

      private

      # [[phase, iterations per CPU-second]] of the readings that have one.
      def speeds(readings)
        Array(readings).filter_map do |r|
          v = r["iterations_per_cpu_s"]
          [r["phase"].to_s, v.to_f] if v.is_a?(Numeric) && v.positive?
        end
      end

      def mean(values) = values.sum / values.size
    end
  end
end
