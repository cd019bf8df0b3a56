# frozen_string_literal: true

module Rackbench
  class Runner
    # Classifies a load engine's error counts into server failures and tool
    # artifacts, using what verification learnt about the endpoint, so that
    # each failed request is counted once, in one class.
    #
    # wrk counts a "read" error each time a server ends a response by closing
    # the connection (no Content-Length: Unicorn and Thin can answer so). For
    # such an endpoint every read error is that artifact, not a failure.
    # Unicorn and Pitchfork answer an application error with a bare
    # "HTTP/1.1 500" and no length, then close (unicorn's
    # HttpServer#handle_error): wrk counts that one request as a status error
    # and a read error. On those servers, read errors up to the number of
    # status errors are that second count ("read_after_error_response").
    # Everything else (connect, write, timeout, non-2xx status) is the server's.
    module Errors
      KINDS = %w[connect read write timeout status].freeze
      # Servers whose error responses end by closing the connection.
      CLOSES_AFTER_ERROR = %w[unicorn pitchfork].freeze

      module_function

      def classify(errors, verification, server: nil)
        close_delimited = verification&.close_delimited ? errors["read"].to_i : 0
        after_error = CLOSES_AFTER_ERROR.include?(server) ? [errors["read"].to_i - close_delimited, errors["status"].to_i].min : 0
        server_failures = KINDS.sum { |k| errors[k].to_i } - close_delimited - after_error
        { "server_failures" => server_failures,
          "artifacts" => { "read_close_delimited" => close_delimited, "read_after_error_response" => after_error } }
      end

      # Failed requests / requests tried, each counted once: wrk's requests
      # are responses (a status error or a late response is one of them);
      # connect, write and read failures got no response, so they add to the
      # requests tried. Over the whole run (responses: every response wrk
      # read, not only those in a throughput window).
      def error_rate(server_failures, responses, errors)
        answered = errors["status"].to_i + errors["timeout"].to_i
        tried = responses + [server_failures - answered, 0].max
        tried.positive? ? [server_failures.to_f / tried, 1.0].min : 0.0
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

      # wrk counts a timeout only when a late response finally arrives, so a
      # server that answers nothing gives 0 requests and 0 errors. Then each
      # of the trial's connections had a request outstanding for the whole
      # trial: count those as timeouts (a lower bound).
      def with_unanswered(errors, result, concurrency)
        return errors unless result.requests.zero? && KINDS.sum { |k| errors[k].to_i }.zero?

        errors.merge("timeout" => concurrency)
      end

      def notes(verification, unanswered: false)
        notes = []
        notes << "no response in the whole trial: each connection's request is counted as a timeout (a lower bound)" if unanswered
        return notes unless verification&.connection_close

        notes << "the server closes each connection (no keep-alive): wrk times from the request's first byte, " \
                 "so time spent waiting in the accept queue is not in the latency"
      end
    end
  end
end
