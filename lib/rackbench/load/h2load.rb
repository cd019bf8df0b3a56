# frozen_string_literal: true

require "etc"
require "tmpdir"
require_relative "program"
require_relative "result"
require_relative "h2load_output"
require_relative "../error"
require_relative "registry"

module Rackbench
  module Load
    # Drives h2load (Debian's nghttp2-client, 1.52) over HTTP/2 in cleartext
    # with prior knowledge (h2c): an http:// URL, never --h1, so only a
    # server that serves h2c answers (Server::Base.protocols; Config refuses
    # the others before anything boots). With --tls the URL is https:// and
    # h2load offers h2 by ALPN (a server that answers with HTTP/1.1 instead
    # is an error, H2loadOutput); the TLS handshake of each connection
    # happens once, inside the -D window.
    #
    # Mapping of rackbench's --concurrency C (requests in flight, the level
    # every engine and Little's law in the verdicts read): -c C/S connections
    # × -m S streams per connection, S = streams: (1 for --engine h2load).
    # One stream per connection keeps both the requests in flight and the
    # connections equal to wrk's at the same C, so the two engines compare
    # level for level and only the protocol differs; it also spreads the load
    # over a forking server's processes as wrk does (a connection is served by
    # one process: -c 1 -m 16 against "falcon x2" leaves a process idle).
    # H2load.new(streams: S) multiplexes S requests on each connection (S
    # must divide C).
    #
    # Method: h2load's -D window. Every connection sends its first requests,
    # then a new one each time a stream closes: a closed loop. h2load counts
    # only streams that close inside the window of -D seconds (its timer
    # starts when the clients start connecting; --warm-up-time is not used,
    # rackbench warms up with a run of its own); streams still open when the
    # window ends are dropped, uncounted (up to C), as wrk drops its in-flight
    # requests. duration_s is -D itself, which h2load's own req/s divides by.
    #
    # Latency ("time for request") is timed per stream from the moment its
    # HEADERS frame is handed to the connection's write buffer (the actual
    # send, not an intended one) to the stream's close (end of the response).
    # Closed loop, so coordinated omission: a stalled server delays the next
    # send, and the requests that would have queued meanwhile are never timed;
    # h2load makes no correction at all. h2load prints no percentiles: only
    # min, max, mean and sd, rounded to 10 µs (10 ms above 1 s), over a
    # uniform reservoir sample of at most 1,000,000 responses (sd divides by
    # n - 1: h2load's sampling counter counts each response twice, so it
    # always takes the sample formula). rackbench takes every
    # figure from --log-file instead (one row per stream closed in the window,
    # µs): min, max, mean, stdev and nearest-rank percentiles (the smallest
    # time at or below which p% of responses fall) over every complete
    # response (H2loadOutput; its test checks them against h2load's line).
    #
    # Open loop: refused. h2load's --rps R sends at most R requests per
    # second per connection, but a request whose time came while the
    # connection's streams were busy waits in a pending count and is timed
    # from when it is finally sent (rps_cb and on_stream_close, src/h2load.cc),
    # not from its intended time: the same coordinated omission as the closed
    # loop. (Its -r/--rate is another thing: new connections per period, each
    # then a closed loop.) Use wrk-open (--rate) for latency from the
    # intended send time.
    class H2load
      include Program
      NO_RATE = "h2load's --rps times a request that waited for a free stream from when it was sent, not from " \
                "when it was due, so its latency would hide the queueing (coordinated omission); use --engine " \
                "wrk-open for --rate"
      # Listed after siege-close (5), before the fake (6).
      Load.register("h2load", order: 5.5, process: "h2load", protocol: "h2c", no_rate: NO_RATE,
                    note: "HTTP/2: h2c, or h2 with --tls, to setups that serve it") { new }

      NOT_FOUND = "h2load not found on PATH: run bin/setup (or apt-get install nghttp2-client)"
      VERSION_LINE = %r{h2load\s+nghttp2/(\d+(?:\.\d+)+)}.freeze
      LOG_NAME = "requests.tsv"
      MAX_DEFAULT_THREADS = 2
      # Pitfalls:
      # - h2load has no per-request timeout, and its -N (connection inactivity timeout) is not used:
      #   h2load 1.52 aborts on a libev assertion, with no report, at the end of a -D window in which a
      #   connection timed out (test/fixtures/h2load/inactivity_abort.txt). A request that never gets an
      #   answer holds its connection to the end, counted by h2load nowhere; the runner's
      #   Sampling::Unanswered sees the silent connection and counts it as a timeout (one per connection:
      #   a lower bound with streams above 1). timeout: only bounds how long rackbench waits for h2load.
      # - A connection the server closes is not reopened (h2load reconnects only after a GOAWAY) and its
      #   stream is counted nowhere: the run goes on with fewer connections.
      # - A server that does not serve h2c leaves h2load's requests unanswered and uncounted (0 done,
      #   0 errors, exit 0): rackbench raises instead of storing a trial of nothing.
      # - h2load prints "Application protocol: h2c" for any http:// URL, whatever the server speaks:
      #   the protocol is what h2load sent; the responses are what prove the server took it.
      # - "status codes:" counts a response at its HEADERS frame, so it can exceed the responses counted
      #   (a stream whose headers came before the window ended and its body after): rackbench reads
      #   complete responses from the "requests:" line and the per-request log.
      # - One h2load thread (-t) is one event loop on one core; rackbench runs min(C / S, cores, 2).

      attr_reader :streams

      def initialize(binary: "h2load", streams: 1)
        @binary = binary.to_s
        unless streams.is_a?(Integer) && streams.positive?
          raise UsageError, "h2load streams must be a whole number above 0, got #{streams.inspect}"
        end

        @streams = streams
      end

      def name
        "h2load"
      end

      # The argv #run executes; log_file: where --log-file writes (a scratch
      # file of #run; the name alone here, so the stored argv is the same on
      # every run). Durations go in milliseconds, as given.
      def command(url:, concurrency:, duration:, threads: nil, timeout: 30, log_file: LOG_NAME)
        clients = connections(whole(concurrency, "concurrency"))
        [@binary, "-c", clients.to_s, "-m", @streams.to_s, "-t", thread_count(threads, clients).to_s,
         "-D", milliseconds(duration, "duration"), "--log-file", log_file.to_s, url.to_s]
      end

      def run(url:, concurrency:, duration:, log_path:, threads: nil, timeout: 30)
        raise Error, NOT_FOUND unless available?

        argv = command(url: url, concurrency: concurrency, duration: duration, threads: threads, timeout: timeout)
        deadline_s = seconds(duration, "duration") + seconds(timeout, "timeout") + GRACE_S
        Dir.mktmpdir("rackbench-h2load") do |dir|
          log_file = File.join(dir, LOG_NAME)
          run_argv = [executable, *argv.drop(1)].tap { |a| a[a.index("--log-file") + 1] = log_file }
          output = execute(run_argv, deadline_s, log_path) { |text| H2loadOutput.failure_message(text, url: url) }
          H2loadOutput.parse(output, File.exist?(log_file) ? File.read(log_file) : "", duration_s: duration.to_f,
                                                                                        command: argv, url: url)
        end
      end

      private

      def program
        "h2load"
      end

      # "1.52.0" (`h2load --version`: "h2load nghttp2/1.52.0").
      def probe_version
        version_from(["--version"], VERSION_LINE)
      end

      def connections(concurrency)
        return concurrency / @streams if (concurrency % @streams).zero?

        raise UsageError, "h2load streams per connection (#{@streams}) must divide concurrency (#{concurrency})"
      end

      # Default: min(connections, cores, 2); h2load refuses more threads than connections.
      def thread_count(threads, clients)
        return [clients, Etc.nprocessors, MAX_DEFAULT_THREADS].min unless threads

        n = whole(threads, "threads")
        return n if n <= clients

        raise UsageError, "h2load threads (#{n}) must not exceed its connections (#{clients})"
      end

      # "1500ms": h2load takes a whole number with a unit.
      def milliseconds(value, label)
        unless value.is_a?(Numeric) && value.positive? && value.to_f.finite?
          raise UsageError, "#{program} #{label} must be a number of seconds above 0, got #{value.inspect}"
        end

        "#{(value.to_r * 1000).ceil}ms"
      end
    end
  end
end
