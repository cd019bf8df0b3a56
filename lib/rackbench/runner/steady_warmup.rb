# frozen_string_literal: true

module Rackbench
  class Runner
    # --warmup steady: a warm-up that waits for the JIT (JRuby's, YJIT's)
    # instead of a fixed number of seconds.
    #
    # Method: load the endpoint in consecutive windows of `window` seconds at
    # the trials' level; steady state is reached when two consecutive windows
    # differ by less than `tolerance` (relative to the larger): throughput in
    # a closed loop, mean latency in an open loop (there throughput is the
    # rate). If `max` seconds pass first, the warm-up ends unsteady and the
    # caller stores a warning on the trials. Measured here: Puma on JRuby's
    # /hello rose from 2.7k to 16.5k req/s over six 5-second windows of one
    # boot, so a 10 s warm-up measured a third to a fifth of its peak.
    #
    # run: a callable taking a duration in seconds, returning a Load::Result.
    # Each window is yielded as it ends (the caller stores it at once).
    class SteadyWarmup
      Outcome = Struct.new(:windows, :steady, :last, :metric, keyword_init: true) do
        # The warm-up as a trial stores it ("warmup" field).
        def to_h
          { "rule" => "steady", "metric" => metric, "windows" => windows.map { |w| w["value"] },
            "seconds" => windows.sum { |w| w["duration_s"] }.round(2), "steady" => steady }
        end
      end

      def initialize(window:, tolerance:, max:, open_loop: false, run:)
        @window = window
        @tolerance = tolerance
        @max = max
        @metric = open_loop ? "latency_mean_ms" : "rps"
        @run = run
      end

      def call
        windows = []
        last = nil
        loop do
          last = @run.call(@window)
          windows << point(last, windows.size + 1)
          yield windows.last if block_given?
          return outcome(windows, true, last) if windows.size >= 2 && close?(windows[-2]["value"], windows[-1]["value"])
          return outcome(windows, false, last) if windows.size * @window >= @max - 1e-9
        end
      end

      # Two consecutive windows within tolerance of each other (0 and 0 agree).
      def close?(a, b)
        top = [a.abs, b.abs].max
        top.zero? || (a - b).abs / top < @tolerance
      end

      private

      def outcome(windows, steady, last)
        Outcome.new(windows: windows, steady: steady, last: last, metric: @metric)
      end

      def point(result, index)
        value = @metric == "rps" ? result.rps.to_f : result.latency_ms.to_h["mean"].to_f
        { "window" => index, "duration_s" => @window, "value" => value.round(2), "rps" => result.rps.to_f.round(2),
          "latency_mean_ms" => result.latency_ms.to_h["mean"], "errors" => result.errors }
      end
    end
  end
end
