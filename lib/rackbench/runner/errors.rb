# frozen_string_literal: true

require_relative "../stats/error_rate"
require_relative "../server"

module Rackbench
  class Runner
    # Classifies a load engine's error counts into server failures and tool
    # artifacts, using what verification learnt about the endpoint, so that
    # each failed request is counted once, in one class.
    #
    # wrk counts a "read" error each time a server ends a response by closing
    # the connection (no Content-Length: Unicorn and Thin can answer so). For
    # such an endpoint, read errors up to the number of responses are that
    # artifact (each such response gives at most one); the read errors beyond
    # it are connections closed with no response at all, a worker that died
    # mid-request (Unicorn's crashing worker gave 1,945 read errors against
    # 1,750 responses), and those are failures.
    # A server that answers an application error with a bare "HTTP/1.1 500"
    # and no length, then closes (its adapter's closes_after_error?: Unicorn
    # and Pitchfork), makes wrk count that one request as a status error and
    # a read error. On those servers, read errors up to the number of status
    # errors are that second count ("read_after_error_response").
    # Everything else (connect, write, timeout, non-2xx status) is the server's.
    module Errors
      KINDS = %w[connect read write timeout status].freeze

      module_function

      # The server's own fact (Server::Base.closes_after_error?); false for an unknown one.
      def closes_after_error?(server)
        Server::ADAPTERS[server]&.closes_after_error? || false
      end

      # responses: the responses the engine read (nil: unknown, and every
      # read error on a close-delimited endpoint is taken for the artifact).
      def classify(errors, verification, server: nil, responses: nil)
        reads = errors["read"].to_i
        close_delimited = verification&.close_delimited ? [reads, responses || reads].min : 0
        after_error = closes_after_error?(server) ? [errors["read"].to_i - close_delimited, errors["status"].to_i].min : 0
        server_failures = KINDS.sum { |k| errors[k].to_i } - close_delimited - after_error
        { "server_failures" => server_failures,
          "artifacts" => { "read_close_delimited" => close_delimited, "read_after_error_response" => after_error } }
      end

      # Failed requests / requests tried, each counted once (Stats::ErrorRate).
      def error_rate(server_failures, responses, errors, unanswered: 0)
        Stats::ErrorRate.of(server_failures, responses, errors, unanswered: unanswered)
      end

      # Successful responses per second: throughput times the share of the
      # run's responses that neither had a status above 399 nor timed out
      # (errors are counted over the whole run, throughput maybe in a window).
      def goodput(result)
        responses = result.responses
        return 0.0 unless responses.positive?

        ok = [responses - result.errors["status"].to_i - result.errors["timeout"].to_i, 0].max
        result.rps * ok / responses
      end

      # Requests still unanswered when the trial ended. wrk counts a timeout
      # only when a late answer finally arrives, so a request the server
      # never finishes is counted nowhere. One still waiting when the trial
      # ended (Load::Result#unanswered_ms: each one's wait) is counted as a
      # timeout when it had waited longer than the timeout, or longer than
      # both HUNG_MEDIANS times the trial's median latency (service time in
      # the open loop) and HUNG_FLOOR_MS. A server still working answers the
      # requests it holds within a few medians (the end of a trial cuts
      # waits of one or two medians), so a wait of 20 medians is a request
      # the server stopped serving; a stop-the-world pause of a second or so
      # stays below the floor. With no waits known (an engine or host that
      # cannot tell), a trial with no response at all counts each
      # connection's request (a lower bound).
      HUNG_FLOOR_MS = 2000.0
      HUNG_MEDIANS = 20

      Unanswered = Struct.new(:errors, :count, :note)

      def with_unanswered(errors, result, concurrency, timeout_s)
        nothing = result.requests.zero? && KINDS.sum { |k| errors[k].to_i }.zero?
        limit = hung_limit_ms(result, timeout_s)
        n = result.unanswered_ms&.count { |ms| ms > limit }
        if nothing && concurrency.positive?
          count = [n.to_i, concurrency].max
          return Unanswered.new(errors.merge("timeout" => count), count,
                                "no response in the whole trial: each connection's request is counted as a timeout (a lower bound)")
        end
        return Unanswered.new(errors, 0, nil) unless n&.positive?

        Unanswered.new(errors.merge("timeout" => errors["timeout"].to_i + n), n,
                       "#{n} request(s) still unanswered when the trial ended had waited over " \
                       "#{format('%g', (limit / 1000.0).round(3))} s (the timeout, or #{HUNG_MEDIANS}x the median latency " \
                       "and at least #{format('%g', HUNG_FLOOR_MS / 1000)} s): counted as timeouts")
      end

      # The median is the service time's in the open loop: its latency counts
      # from planned sends, so a server that stopped answering moves it too.
      def hung_limit_ms(result, timeout_s)
        times = result.service_ms || result.latency_ms
        median = times.is_a?(Hash) ? times["p50"].to_f : 0.0
        [(timeout_s || Float::INFINITY).to_f * 1000, [HUNG_FLOOR_MS, HUNG_MEDIANS * median].max].min
      end

      def notes(verification, unanswered: nil)
        notes = [unanswered].compact
        return notes unless verification&.connection_close

        notes << "the server closes each connection (no keep-alive): each request opens a new one, and since the " \
                 "kernel completes the handshake before the server accepts, the request is sent at once and its " \
                 "wait in the accept queue is in the latency (only the handshake is not)"
      end
    end
  end
end
