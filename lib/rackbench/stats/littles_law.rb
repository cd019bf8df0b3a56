# frozen_string_literal: true

module Rackbench
  module Stats
    # Little's law, L = lambda * W: the mean number of requests in the system
    # equals throughput times mean time in it. In a closed loop L is the
    # concurrency (each connection always has one request out, bar the
    # client's own time between them), so rps * mean latency should come
    # out near c. When it does not (beyond TOLERANCE), a figure is wrong:
    # throughput or latency counted over different windows, errors answered
    # fast, connect time outside the latency (no keep-alive), or requests
    # lost at the trial's end. Open loop: L is an outcome, reported, not checked.
    module LittlesLaw
      TOLERANCE = 0.2
      # Why the product comes out high or low, most likely cause first.
      HIGH = "the mean latency is more than the throughput allows: wrk adds synthetic samples for responses slower " \
             "than twice the mean (a stalling server or a busy machine), so the latency figures overstate"
      LOW = "fewer requests were in flight than connections: connect time outside the latency (no keep-alive), " \
            "errors answered fast, or requests lost at the trial's ends"

      Check = Struct.new(:expected, :measured, :ratio, :holds, :note, keyword_init: true) do
        def to_h
          { "expected" => expected, "measured" => measured, "ratio" => ratio, "holds" => holds, "note" => note }
        end
      end

      module_function

      def check(trial)
        rps = trial["rps"]
        mean = trial.dig("latency_ms", "mean")
        return nil unless rps && mean

        measured = (rps * mean / 1000.0).round(2)
        if trial["loop"] == "open"
          return Check.new(expected: nil, measured: measured, ratio: nil, holds: nil,
                           note: "open loop: #{measured} requests in the system on average (not checked)")
        end

        c = trial["concurrency"].to_f
        return nil unless c.positive?

        ratio = (measured / c).round(3)
        holds = (ratio - 1).abs <= TOLERANCE
        note = holds ? nil : "Little's law does not hold: c=#{c.round} but req/s × mean latency = #{measured} " \
                             "(#{format('%+d', ((ratio - 1) * 100).round)}%): #{ratio > 1 ? HIGH : low(trial)}"
        Check.new(expected: c, measured: measured, ratio: ratio, holds: holds, note: note)
      end

      # Requests the server never answered hold connections without adding
      # to the mean: the likeliest cause when the trial counted some.
      def low(trial)
        hung = trial["unanswered"].to_i
        return LOW unless hung.positive?

        "#{hung} connection(s) held a request the server never answered (counted as timeouts); or #{LOW}"
      end
    end
  end
end
