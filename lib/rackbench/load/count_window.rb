# frozen_string_literal: true

module Rackbench
  module Load
    # Closed-loop throughput counted away from the trial's ends.
    #
    # Why: each of a closed loop's C connections always has one request out,
    # so responses arrive at X = C / latency (Little's law), except at the
    # end: the C requests in flight when wrk stops are never counted, so
    # requests / run time understates X by up to latency / run time. On a
    # 1-second /sleep, Puma x2:5 at C = 8 for 5 s stored 6.4 req/s where 8 is
    # the law (each connection finished 4 requests, not 5).
    #
    # Method: from the sorted response times (wrk/window.lua), a window that
    # starts at the C-th response (the first round, which holds the connects,
    # is left out) and spans k whole rounds of C responses, k as large as the
    # run allows: it holds exactly k x C responses (those after its start, up
    # to and including its end). A window anchored on responses is unbiased
    # for a steady process (the mean gap between responses is 1/X), and a
    # whole number of rounds makes it exact when the connections move in step,
    # as on a fixed pause (each completes once per round, whatever the phase).
    # requests = k x C and duration_s = the window's length, so
    # requests / duration_s is the stored rps.
    module CountWindow
      Window = Struct.new(:start_s, :end_s, :requests, keyword_init: true) do
        def duration_s
          end_s - start_s
        end
      end

      module_function

      # times: response times in seconds since the run started, sorted.
      # nil when the run holds less than one whole round after the first.
      def call(times, connections)
        first = connections - 1
        rounds = (times.size - 1 - first) / connections
        return nil unless connections.positive? && rounds.positive?

        last = first + rounds * connections
        return nil unless times[last] > times[first]

        Window.new(start_s: times[first], end_s: times[last], requests: rounds * connections)
      end
    end
  end
end
