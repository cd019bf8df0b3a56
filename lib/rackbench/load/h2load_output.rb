# frozen_string_literal: true

require_relative "result"
require_relative "../error"

module Rackbench
  module Load
    # Reads h2load's (nghttp2 1.52) final statistics and its --log-file.
    # h2load has no machine-readable summary, so its own lines are read
    # with anchored patterns, and a line missing or changed is an Error,
    # never a zero:
    #
    #   finished in 1.00s, 3445.00 req/s, 152.04KB/s
    #   requests: 3445 total, 3453 started, 3445 done, 3445 succeeded, 0 failed, 0 errored, 0 timeout
    #   status codes: 3446 2xx, 0 3xx, 0 4xx, 0 5xx
    #   traffic: 152.04KB (155694) total, ...
    #   time for request:      309us     59.12ms      2.30ms      2.30ms    93.53%
    #
    # Mapping onto Result (h2load's counters, src/h2load.cc):
    # - requests: complete responses of any status, succeeded + failed -
    #   errored ("succeeded" is 2xx/3xx; "failed" adds 4xx/5xx and broken
    #   streams; "errored" is the broken ones). Streams still open when the
    #   window ended ("started" - "done") are not counted, as wrk drops its
    #   in-flight requests. "status codes:" is not used for counts: it counts a
    #   response at its headers, so it can exceed the complete ones by one.
    # - duration_s: the -D window, which h2load's own req/s divides by
    #   (checked: req/s x duration_s = requests).
    # - bytes: traffic total, every byte received (frames, headers, bodies).
    # - errors: status <- failed - errored; timeout <- "timeout"; read <-
    #   errored - timeout (streams reset or cut by a lost connection); connect
    #   and write 0 (h2load's -D mode counts neither: a refused or closed
    #   connection is only missing requests).
    # - latency_ms: from the --log-file rows (one per stream closed in the
    #   window: start, status or -1, µs from sending HEADERS to the stream's
    #   close), over the complete responses: min, max, mean, stdev (n - 1,
    #   as h2load's own sd in effect: its sampling counter counts each
    #   response twice, so it always takes the sample formula), and
    #   nearest-rank percentiles (the smallest time with at least p% of
    #   responses at or below it). "time for request:" (h2load's own
    #   min/max/mean/sd, rounded, from a reservoir of at most 1,000,000) is
    #   read by #summary only, to check the log against it.
    # - protocol: "Application protocol:", what h2load spoke (h2c for http://).
    # - tls: over https://, "TLS Protocol:" and "Cipher:", what its connections agreed.
    module H2loadOutput
      FINISHED = %r{^finished in (\S+), (\d+\.\d+) req/s}.freeze
      REQUESTS = /^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout$/.freeze
      STATUS = /^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx$/.freeze
      TRAFFIC = /^traffic: \S+ \((\d+)\) total/.freeze
      TIME_FOR_REQUEST = /^time for request:\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s/.freeze
      PROTOCOL = /^Application protocol: (\S+)$/.freeze
      TLS_VERSION = /^TLS Protocol: (\S+)$/.freeze
      CIPHER = /^Cipher: (\S+)$/.freeze
      COUNTS = %w[total started done succeeded failed errored timeout].freeze
      PERCENTILES = { "p50" => 50r, "p75" => 75r, "p90" => 90r, "p99" => 99r, "p99.9" => 999/10r }.freeze
      UNITS_MS = { "us" => 0.001, "ms" => 1.0, "s" => 1000.0 }.freeze
      RPS_ROUNDING = 0.006 # h2load prints req/s with two decimals

      module_function

      # text: h2load's output; log: its --log-file; duration_s: the -D window.
      def parse(text, log, duration_s:, command: nil, url: nil)
        s = summary(text)
        c = s[:requests]
        connected!(s, url)
        negotiated!(s, url)
        responses = c["succeeded"] + c["failed"] - c["errored"]
        answered!(s, responses, duration_s, url)
        rate!(s, responses, duration_s)
        Result.new(engine: "h2load", requests: responses, duration_s: duration_s.to_f, bytes: s[:bytes],
                   errors: { "connect" => 0, "read" => [c["errored"] - c["timeout"], 0].max, "write" => 0,
                             "timeout" => c["timeout"], "status" => c["failed"] - c["errored"] },
                   latency_ms: latency(log, responses, c["done"]), loop: "closed", command: command,
                   protocol: s[:protocol], tls: tls(text))
      end

      # h2load's own figures, as printed: {requests: {"total" => .., ...},
      # status: {"2xx" => ..}, bytes:, rps:, finished_s:, request_ms:
      # {"min", "max", "mean", "sd"}, protocol:}.
      def tls(text)
        version = text[TLS_VERSION, 1] or return nil
        { "version" => version, "cipher" => text[CIPHER, 1] }.compact
      end

      def summary(text)
        text = text.to_s
        counts = line(text, REQUESTS, "requests:").map(&:to_i)
        time = line(text, TIME_FOR_REQUEST, "time for request:")
        finished = line(text, FINISHED, "finished in")
        { requests: COUNTS.zip(counts).to_h, status: %w[2xx 3xx 4xx 5xx].zip(line(text, STATUS, "status codes:").map(&:to_i)).to_h,
          bytes: line(text, TRAFFIC, "traffic:").first.to_i, rps: finished[1].to_f, finished_s: ms(finished[0]) / 1000.0,
          request_ms: %w[min max mean sd].zip(time.map { |t| ms(t) }).to_h, protocol: text[PROTOCOL, 1] }
      end

      # One line saying why h2load failed (a non-zero exit), in its own words.
      def failure_message(text, url: nil)
        lines = text.to_s.lines.map(&:strip).reject(&:empty?)
        last = lines.last or return "h2load failed and printed nothing#{" (#{url})" if url}"
        return "h2load aborted: #{last}" if last.include?("Assertion")
        return "h2load rejected its arguments: #{last}" if last.match?(/\A-[-\w, ]+: /)

        "h2load failed: #{last}#{" (#{url})" if url}"
      end

      # Nothing started and no protocol chosen: no connection was made
      # (h2load -D exits 0 with zeros when every connect is refused).
      def connected!(s, url)
        return if s[:requests]["started"].positive? || s[:protocol]

        raise Error, "h2load could not connect to #{url || 'the server'}: is the server listening?"
      end

      # Over https:// h2load offers h2 by ALPN and falls back to HTTP/1.1
      # when the server does not take it: measured so, it would not be HTTP/2.
      def negotiated!(s, url)
        return unless url.to_s.start_with?("https://") && s[:protocol] && s[:protocol] != "h2"

        raise Error, "h2load negotiated #{s[:protocol]}, not h2, with #{url}: the server offers no HTTP/2 over " \
                     "TLS (ALPN); use --engine wrk for HTTP/1.1 over TLS"
      end

      # Requests sent and bytes back, but no complete response: the server
      # answered in something other than HTTP/2 (an HTTP/1.1-only server's
      # 400), or it stopped answering after its SETTINGS. With no byte back
      # at all the empty result stands: the runner counts the silent
      # connections' requests as timeouts (Runner::Errors.with_unanswered).
      def answered!(s, responses, duration_s, url)
        return if responses.positive? || s[:bytes].zero?

        raise Error, "h2load sent #{s[:requests]['started']} request(s) over #{s[:protocol] || 'h2c'} to " \
                     "#{url || 'the server'} and got no complete response in #{duration_s} s, though " \
                     "#{s[:bytes]} bytes came back: the server does not serve HTTP/2 in cleartext with prior " \
                     "knowledge (h2c), or it stopped answering; use --engine wrk for HTTP/1.1"
      end

      def rate!(s, responses, duration_s)
        return if (s[:rps] - (responses / duration_s.to_f)).abs <= RPS_ROUNDING

        raise Error, "h2load's req/s (#{s[:rps]}) is not its #{responses} responses over #{duration_s} s: " \
                     "its output format has changed; see its log"
      end

      def latency(log, responses, done)
        rows = log.to_s.each_line.map { |l| l.split("\t") }
        unless rows.size == done && rows.all? { |r| r.size >= 3 }
          raise Error, "h2load's --log-file holds #{rows.size} rows for its #{done} requests done: cannot time them"
        end

        us = rows.reject { |r| r[1] == "-1" }.map { |r| Integer(r[2], 10) }.sort
        raise Error, "h2load's --log-file holds #{us.size} complete responses, its summary #{responses}" if us.size != responses
        return (%w[min mean stdev max] + PERCENTILES.keys).to_h { |k| [k, nil] } if us.empty?

        figures(us)
      end

      def figures(sorted)
        n = sorted.size
        mean = sorted.sum.to_f / n
        stdev = n > 1 ? Math.sqrt(sorted.sum { |t| (t - mean)**2 } / (n - 1)) : 0.0
        { "min" => sorted.first, "mean" => mean, "stdev" => stdev, "max" => sorted.last }
          .merge(PERCENTILES.transform_values { |p| sorted[[(p * n / 100).ceil - 1, 0].max] })
          .transform_values { |v| v / 1000.0 }
      end

      def line(text, pattern, name)
        match = text.match(pattern)
        raise Error, "h2load printed no \"#{name}\" line that rackbench can read; see its log" unless match

        match.captures
      end

      # "309us", "59.12ms", "1.00s" -> milliseconds.
      def ms(text)
        value, unit = text.match(/\A(\d+(?:\.\d+)?)(us|ms|s)\z/)&.captures
        raise Error, "h2load printed a time rackbench cannot read: #{text.inspect}" unless value

        value.to_f * UNITS_MS.fetch(unit)
      end

      private_class_method :connected!, :negotiated!, :answered!, :rate!, :latency, :figures, :line, :ms
    end
  end
end
