# frozen_string_literal: true

module Rackbench
  module Load
    # How many connections (one wrk thread each, WrkOpenLoop) an open-loop
    # trial opens, from what the server needs rather than a fixed latency.
    #
    # Method (Little's law): requests in flight = rate x time each one takes.
    # With the warm-up's measured tail latency L (its p99: service time for
    # an open-loop warm-up, latency for a closed-loop one) at rate R, the
    # server holds about R x L requests at once in the slow spells that
    # matter; MARGIN leaves room for spells slower than the warm-up's p99,
    # and FLOOR keeps a few connections even for a fast page (each connection
    # then sends every FLOOR/R seconds, 2 ms at 4,000 req/s, well above
    # wrk's 1 ms timer). A request whose connection is still busy at its
    # planned time waits and is charged in latency, so a smaller count
    # understates nothing; it only changes the queue the server sees.
    #
    # Each connection costs a wrk thread (its own event loop, timers and
    # 120 KB of histograms): past THREAD_CAP the client's own CPU and
    # scheduling delays grow (bench/open_loop_light.rb). When Little's law
    # asks for more, the connections are added anyway (up to
    # WrkOpenLoop::MAX_CONNECTIONS) and the decision says so.
    module OpenLoopSizing
      MARGIN = 2
      FLOOR = 8
      THREAD_CAP = 64
      MAX = 1000

      Decision = Struct.new(:connections, :needed, :latency_ms, :rate, :added, keyword_init: true) do
        def to_h
          { "connections" => connections, "needed" => needed, "latency_ms" => latency_ms&.round(3), "rate" => rate,
            "rule" => "Little's law: rate x warm-up p99 x #{MARGIN}, at least #{FLOOR}", "added" => added }
        end

        # Said when the schedule needed more connections than the usual cap.
        def note
          return nil unless added

          "the open loop at #{rate.round} req/s needs #{needed} connections (rate x warm-up p99 #{latency_ms.round(1)} ms " \
            "x #{MARGIN}): #{connections} opened, above the usual #{THREAD_CAP} (one wrk thread each), so the client " \
            "costs more CPU; check its CPU share in the trial"
        end
      end

      module_function

      # latency_ms: the warm-up's p99 (ms); nil: no decision (the caller
      # keeps the engine's own rule).
      def decide(rate:, latency_ms:)
        return nil unless latency_ms&.positive? && rate.to_f.positive?

        needed = (rate.to_f * latency_ms / 1000.0 * MARGIN).ceil
        n = [needed, FLOOR].max
        Decision.new(connections: [n, MAX].min, needed: needed, latency_ms: latency_ms, rate: rate.to_f,
                     added: n > THREAD_CAP)
      end

      # The p99 a warm-up result offers: service time when open loop (the
      # time a request held the server), latency otherwise.
      def warmup_p99(result)
        return nil unless result

        figures = result.loop == "open" ? result.service_ms : result.latency_ms
        figures&.dig("p99")
      end
    end
  end
end
