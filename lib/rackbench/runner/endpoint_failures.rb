# frozen_string_literal: true

require_relative "../clock"

module Rackbench
  class Runner
    # The endpoints of a run known to fail verification under any server:
    # those that answered a redirect or a 4xx (Verify::Failed#app_answer?),
    # which is the app's answer to the path, not the server's. Once one setup
    # found it, the other setups (and repetitions) skip that endpoint
    # instead of booting to fail it again; a setup whose every endpoint is
    # known to fail does not boot at all. A 5xx, no answer or a wrong body
    # may be one server's doing and is verified on each setup.
    #
    # Limit: the first setup to find the answer decides for the run; a path
    # one server alone answers with a 4xx (none of the adapters here does)
    # would be skipped on the others too.
    class EndpointFailures
      Known = Struct.new(:endpoint, :setup, :status, :reason, keyword_init: true)

      # The setups.jsonl line of an endpoint a session did not measure:
      # status "failed" (it failed verification there) or "skipped" (known
      # to fail, not verified again), with the number of its trials left out.
      def self.record(setup, repetition, endpoint, status:, reason:, trials_skipped:)
        { "setup" => setup.label, "server" => setup.server, "repetition" => repetition, "endpoint" => endpoint,
          "status" => status, "reason" => reason, "trials_skipped" => trials_skipped, "at" => Clock.wall_iso8601 }
      end

      def initialize
        @known = {}
        @said = {}
      end

      # Keeps failure (a Verify::Failed of endpoint found on setup_label)
      # when it is the app's answer.
      def add(endpoint, failure, setup_label)
        return unless failure.app_answer?

        @known[endpoint] ||= Known.new(endpoint: endpoint, setup: setup_label, status: failure.status, reason: failure.message)
      end

      # The Known failure of endpoint, or nil.
      def [](endpoint)
        @known[endpoint]
      end

      # The reason stored on a skipped endpoint's record.
      def skip_reason(known)
        "not verified again: on #{known.setup} it answered #{known.status}, the app's answer under every server (#{known.reason})"
      end

      # One warning per endpoint for the whole run (nil once said).
      def warning_once(known)
        return nil if @said[known.endpoint]

        @said[known.endpoint] = true
        "#{known.endpoint} answered #{known.status} on #{known.setup}: skipped on the other setups (a redirect or a 4xx is " \
          "the app's answer to the path, the same under every server); fix the path or drop --endpoint #{known.endpoint}"
      end
    end
  end
end
