# frozen_string_literal: true

module Rackbench
  module Stats
    # The CPU-speed calibrations of two runs (calibration.jsonl, taken by
    # Rackbench::Calibration at the start and end of each measuring command)
    # set side by side for `rackbench compare`:
    #
    # - between: B's speed against A's, each run's speed the mean of its
    #   readings (iterations of fib(22) per CPU-second); reported when they
    #   differ by more than the margin (|B/A - 1| > margin) and by more than
    #   the readings' own spread;
    # - drift: within one run, the fastest reading against the slowest;
    #   reported when it exceeds 1 + margin and the readings' own spread.
    #
    # The readings' own spread: each reading keeps its processes' samples
    # (Calibration::PROCESSES of them), which vary by about 11% under load on
    # this machine, more than the 5% margin; a difference is said only when
    # the two sides' samples do not overlap (the slowest sample of the faster
    # side above the fastest of the slower side), so a note is not the
    # calibration's noise. Readings stored without samples count as one
    # sample each.
    #
    # A run without readings (made before calibrations existed, or whose
    # calibration failed) takes part in neither: nothing is said about it.
    # The readings themselves vary by several percent under load (see
    # Calibration), so these findings are a caution, not a correction:
    # nothing is rescaled by them.
    class CpuSpeed
      Drift = Struct.new(:run, :readings, :ratio, keyword_init: true)
      Between = Struct.new(:a, :b, :ratio, keyword_init: true)

      # One run's drift (Drift, run "A") or nil: what run says at its end.
      def self.drift(readings, margin:)
        new(readings, [], margin: margin).drifts.first
      end

      # readings_a, readings_b: the runs' calibration.jsonl lines.
      def initialize(readings_a, readings_b, margin:)
        @a = speeds(readings_a)
        @b = speeds(readings_b)
        @margin = margin
      end

      # Between or nil.
      def between
        return nil if @a.empty? || @b.empty?

        a = mean(@a.map { |r| r[1] })
        b = mean(@b.map { |r| r[1] })
        ratio = b / a
        return nil unless (ratio - 1).abs > @margin

        apart?(@a.flat_map { |r| r[2] }, @b.flat_map { |r| r[2] }) ? Between.new(a: a, b: b, ratio: ratio) : nil
      end

      # [Drift] for the runs ("A", "B") whose speed moved by more than the margin.
      def drifts
        [["A", @a], ["B", @b]].filter_map do |run, readings|
          next if readings.size < 2

          values = readings.map { |r| r[1] }
          ratio = values.max / values.min
          fast = readings.max_by { |r| r[1] }
          slow = readings.min_by { |r| r[1] }
          next unless ratio - 1 > @margin && apart?(fast[2], slow[2])

          Drift.new(run: run, readings: readings.map { |r| r.first(2) }, ratio: ratio)
        end
      end

      private

      # [[phase, iterations per CPU-second, samples]] of the readings that have one.
      def speeds(readings)
        Array(readings).filter_map do |r|
          v = r["iterations_per_cpu_s"]
          next unless v.is_a?(Numeric) && v.positive?

          samples = Array(r["samples"]).select { |s| s.is_a?(Numeric) && s.positive? }.map(&:to_f)
          [r["phase"].to_s, v.to_f, samples.empty? ? [v.to_f] : samples]
        end
      end

      # The two sets of samples do not overlap.
      def apart?(one, other)
        one.min > other.max || one.max < other.min
      end

      def mean(values) = values.sum / values.size
    end
  end
end
