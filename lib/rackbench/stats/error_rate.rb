# frozen_string_literal: true

module Rackbench
  module Stats
    # Failed requests / requests tried, each counted once: wrk's requests
    # are responses (a status error or a late response is one of them);
    # connect, write and read failures got no response, so they add to the
    # requests tried, and so do the unanswered requests counted as
    # timeouts (Runner::Errors.with_unanswered). Over the whole run
    # (responses: every response wrk read, not only those in a throughput
    # window). Stored with each trial (Runner::TrialRecord) and judged
    # against an SLO (Stats::Slo).
    module ErrorRate
      module_function

      def of(server_failures, responses, errors, unanswered: 0)
        answered = errors["status"].to_i + errors["timeout"].to_i - unanswered
        tried = responses + [server_failures - answered, 0].max
        tried.positive? ? [server_failures.to_f / tried, 1.0].min : 0.0
      end
    end
  end
end
