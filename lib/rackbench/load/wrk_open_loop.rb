# frozen_string_literal: true

require_relative "wrk"
require_relative "wrk_open_output"
require_relative "../error"
require_relative "registry"

module Rackbench
  module Load
    # Open-loop (constant-rate) load with Debian's stock wrk 4.1 and a Lua
    # script (wrk/open_loop.lua; the method, clock and histogram are described
    # there). Requests are sent on a fixed schedule, R a second, whatever the
    # server does, and each is timed from its planned send time, so a server
    # that stalls is charged for every request that would have arrived during
    # the stall: latency without coordinated omission (wrk2's method). The
    # uncorrected service time (from the actual send) is reported beside it.
    #
    # Same contract as Wrk (name, available?, version, command, run) with a
    # rate instead of a concurrency:
    #   run(url:, rate:, duration:, log_path:, connections: nil, timeout: 30,
    #       expected_latency_ms: nil) -> Result with loop "open"
    #
    # Limits:
    # - One connection per wrk thread; many connections mean many threads:
    #   wrk creates them one by one (1-3 ms each, ~0.6 s for 200), and all
    #   wait at a start gate so the schedule starts together (open_loop.lua);
    #   each thread holds 120 KB of histograms. Capped at MAX_CONNECTIONS.
    #   On a small machine many threads also delay sends: see schedule slip.
    # - Sends are paced by wrk's 1 ms timers: up to ~1 ms early or late.
    # - duration is the scheduled window (fractions allowed); wrk runs
    #   ceil(duration + MIN_DRAIN_S) whole seconds so answers to the last
    #   sends can arrive. Nothing is sent in that tail.
    # - HTTP/1.1 keep-alive, one request at a time per connection (no
    #   pipelining): a connection busy at its planned time sends late, and
    #   the wait counts in latency.
    class WrkOpenLoop < Wrk
      Load.register("wrk-open", order: 2, process: "wrk", loop: "open", scenario: true, note: "with --rate", default: true,
                    synthetic: true) { new }
      SCRIPT = File.expand_path("wrk/open_loop.lua", __dir__)
      MIN_DRAIN_S = 0.25
      # Connection rule: each connection sends every N/R seconds. N >= R x
      # 10 ms keeps that interval at 10 ms or more, so a connection is
      # normally free again by its next planned send (a fast response takes
      # well under 10 ms); N >= R x expected tail latency keeps enough
      # connections free to go on sending through a slow spell, so the
      # server sees the queue a real population of users would build.
      # Requests that wait for a busy connection are still charged in
      # latency, so a smaller N underestimates nothing; it only changes what
      # the server sees.
      MIN_INTERVAL_MS = 10
      MAX_CONNECTIONS = 1000

      def self.connections_for(rate:, expected_latency_ms: nil)
        needed = [1, (rate.to_r * MIN_INTERVAL_MS / 1000).ceil]
        needed << (rate.to_r * expected_latency_ms.to_r / 1000).ceil if expected_latency_ms
        [needed.max, MAX_CONNECTIONS].min
      end

      def name
        "wrk-open"
      end

      # scenario: a Rackbench::Scenario: each planned send picks its path by
      # weight (open_loop.lua's arguments after the first four).
      def command(url:, rate:, duration:, connections: nil, timeout: 30, expected_latency_ms: nil, scenario: nil)
        rate = positive(rate, "rate (requests per second)")
        duration = positive(duration, "duration")
        n = connection_count(rate, connections, expected_latency_ms)
        run_s = run_seconds(duration)
        [@binary, "-t", n.to_s, "-c", n.to_s, "-d", "#{run_s}s", "--timeout", "#{seconds(timeout, 'timeout')}s",
         "-s", SCRIPT, url.to_s, number(rate), n.to_s, number(duration), run_s.to_s, *scenario&.script_args]
      end

      def run(url:, rate:, duration:, log_path:, connections: nil, timeout: 30, expected_latency_ms: nil,
              scenario: nil)
        raise Error, NOT_FOUND unless available?

        argv = command(url: url, rate: rate, duration: duration, connections: connections, timeout: timeout,
                       expected_latency_ms: expected_latency_ms, scenario: scenario)
        deadline_s = run_seconds(duration) + seconds(timeout, "timeout") + GRACE_S
        WrkOpenOutput.parse(execute_wrk(argv, deadline_s, log_path, url: url), command: argv)
      end

      private

      def connection_count(rate, connections, expected_latency_ms)
        if connections
          n = whole(connections, "connections")
          return n if n <= MAX_CONNECTIONS

          raise UsageError, "wrk-open connections must be at most #{MAX_CONNECTIONS} (one wrk thread each), got #{n}"
        end
        expected_latency_ms = positive(expected_latency_ms, "expected latency (ms)") if expected_latency_ms
        self.class.connections_for(rate: rate, expected_latency_ms: expected_latency_ms)
      end

      def run_seconds(duration)
        (duration.to_r + MIN_DRAIN_S.to_r).ceil
      end

      # Plain decimal for the script's tonumber(): 50, 12.5 (never 1.0e-05).
      def number(value)
        return value.to_s if value.is_a?(Integer)

        format("%.6f", value).sub(/\.?0+\z/, "")
      end
    end
  end
end
