# frozen_string_literal: true

require "etc"
require_relative "program"
require_relative "result"
require_relative "wrk_output"
require_relative "../error"
require_relative "registry"

module Rackbench
  module Load
    # Drives wrk 4.x (github.com/wg/wrk), a closed-loop HTTP/1.1 load generator.
    #
    # Method: wrk opens C connections, split over T threads, and keeps them
    # alive (keep-alive is wrk's default; it reconnects only when the server
    # closes). Each connection sends a request, waits for the whole response,
    # then sends the next. Latency is timed from writing a request to reading
    # the end of its response. wrk/report.lua prints the figures as one JSON
    # line, read by WrkOutput.
    #
    # Limits of the measurement:
    # - Closed loop, so coordinated omission: a stalled server delays the next
    #   send, and the requests that would have queued meanwhile are never
    #   timed, so percentiles understate the tail a user arriving at a steady
    #   rate would see. wrk 4 adds synthetic samples for responses slower than
    #   twice the mean per-connection interval; this only partly corrects it.
    # - wrk keeps latency in its own histogram (1 µs buckets up to --timeout),
    #   not an HdrHistogram. A response slower than --timeout counts as a
    #   "timeout" error (and as a request) and is left out of the latency
    #   figures. A request that never gets an answer is counted nowhere.
    # - "read" errors include one per response the server ends by closing the
    #   connection (no Content-Length): an artifact, not a server failure.
    # - "status" errors are responses with a status above 399; they count in
    #   requests, so rps includes them.
    # - -d and --timeout take whole seconds only (wrk prints its usage for
    #   "1.5s" or "500ms"): both are rounded up. wrk stops on a 100 ms timer,
    #   so runs overshoot (1.00-1.10 s for -d 1s); duration_s is wrk's own
    #   measured run time (wall clock, gettimeofday), and rps divides by it.
    # - The requests in flight when wrk stops are lost (up to one per
    #   connection), which understates throughput by up to latency / run time.
    #   With window: true (the runner asks for it when the warm-up's latency
    #   makes that bias matter), wrk/window.lua logs every response's time and
    #   requests / duration_s are those of a CountWindow away from the ends.
    # - --latency only adds the percentile table to the screen text in the log,
    #   for a human reading it; the figures come from report.lua.
    # - wrk gives each thread C / T connections, rounded down (-t 2 -c 5 opens
    #   4 connections while printing "5 connections"): T must divide C.
    class Wrk
      include Program
      Load.register("wrk", order: 1, process: "wrk", scenario: true, default: true, synthetic: true) { new }

      SCRIPT = File.expand_path("wrk/report.lua", __dir__)
      SCENARIO_SCRIPT = File.expand_path("wrk/scenario.lua", __dir__)
      WINDOW_SCRIPT = File.expand_path("wrk/window.lua", __dir__)
      NOT_FOUND = "wrk not found on PATH: run bin/setup (or apt-get install wrk)"
      VERSION_LINE = %r{\Awrk\s+(?:\S*/)?v?(\d+(?:\.\d+)+)}.freeze
      MAX_DEFAULT_THREADS = 2

      def initialize(binary: "wrk")
        @binary = binary.to_s
      end

      def name
        "wrk"
      end

      # The argv #run executes (also stored in meta.json). duration and
      # timeout in seconds, rounded up to whole seconds.
      # scenario: a Rackbench::Scenario (weighted paths, picked per request
      # by wrk/scenario.lua) or nil for the URL's own path.
      # window: count throughput in a window away from the run's ends
      # (wrk/window.lua, CountWindow; not with a scenario, whose script is
      # its own).
      def command(url:, concurrency:, duration:, threads: nil, timeout: 30, scenario: nil, window: false)
        connections = whole(concurrency, "concurrency")
        script = scenario ? SCENARIO_SCRIPT : (window ? WINDOW_SCRIPT : SCRIPT)
        [@binary, "-t", thread_count(threads, connections).to_s, "-c", connections.to_s,
         "-d", "#{seconds(duration, 'duration')}s", "--timeout", "#{seconds(timeout, 'timeout')}s",
         "--latency", "-s", script, url.to_s, *scenario&.script_args]
      end

      # This engine can count throughput in a window (run's window: option).
      def counts_window?
        true
      end

      def run(url:, concurrency:, duration:, log_path:, threads: nil, timeout: 30, scenario: nil, window: false)
        raise Error, NOT_FOUND unless available?

        argv = command(url: url, concurrency: concurrency, duration: duration, threads: threads, timeout: timeout,
                       scenario: scenario, window: window)
        deadline_s = seconds(duration, "duration") + seconds(timeout, "timeout") + GRACE_S
        WrkOutput.parse(execute_wrk(argv, deadline_s, log_path, url: url), command: argv)
      end

      private

      def program
        "wrk"
      end

      # url: what a failure message names (argv's last word may be a script argument).
      def execute_wrk(argv, deadline_s, log_path, url:)
        execute(argv, deadline_s, log_path) { |output| WrkOutput.failure_message(output, url: url) }
      end

      # "4.1.0". `wrk --version` prints its version and usage, then exits 1.
      def probe_version
        version_from(["--version"], VERSION_LINE)
      end

      # Default: the largest divisor of C not above min(C, cores, 2), so every
      # thread gets the same number of connections and all C are opened.
      def thread_count(threads, connections)
        return checked_threads(whole(threads, "threads"), connections) if threads

        limit = [connections, Etc.nprocessors, MAX_DEFAULT_THREADS].min
        limit.downto(1).find { |t| (connections % t).zero? }
      end

      def checked_threads(threads, connections)
        if threads > connections
          raise UsageError, "wrk threads (#{threads}) must not exceed concurrency (#{connections})"
        end
        unless (connections % threads).zero?
          raise UsageError, "wrk threads (#{threads}) must divide concurrency (#{connections}): " \
                            "wrk would open only #{connections / threads * threads} connections"
        end

        threads
      end
    end
  end
end
