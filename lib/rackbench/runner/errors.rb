# frozen_string_literal: true

module Rackbench
  class Runner
    # Classifies a load engine's error counts into server failures and tool
    # artifacts, using what verification learnt about the endpoint.
    #
    # wrk counts a "read" error each time a server ends a response by closing
    # the connection (no Content-Length: Unicorn and Thin can answer so). For
    # such an endpoint every read error is that artifact, not a failure.
    # Everything else (connect, write, timeout, non-2xx status) is the server's.
    module Errors
      KINDS = %w[connect read write timeout status].freeze

      module_function

      def classify(errors, verification)
        artifact = verification&.close_delimited ? errors["read"].to_i : 0
        server = KINDS.sum { |k| errors[k].to_i } - artifact
        { "server_failures" => server, "artifacts" => { "read_close_delimited" => artifact } }
      end

      # Successful responses per second: wrk's completed requests minus those
      # with a status above 399 and those that timed out.
      def goodput(result)
        ok = result.requests - result.errors["status"].to_i - result.errors["timeout"].to_i
        result.duration_s.positive? ? [ok, 0].max / result.duration_s : 0.0
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
