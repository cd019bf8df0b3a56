# frozen_string_literal: true

require_relative "../../clock"
require_relative "../endpoint_failures"

module Rackbench
  class Runner
    class Session
      # What a session does not measure, and the record of why: an endpoint
      # another setup found the app answers wrongly (skipped), one that
      # failed verification here, or the whole setup failing. Each counts
      # its trials left as done (progress) and stores a setups.jsonl line;
      # a failure is reported as one (the listener's setup_failed).
      class LeftOut
        def initialize(context, setup, repetition, trials)
          @ctx = context
          @setup = setup
          @rep = repetition
          @trials = trials
          @endpoints = []
        end

        def include?(endpoint)
          @endpoints.include?(endpoint)
        end

        def any?
          @endpoints.any?
        end

        # The run's EndpointFailures, shared by its sessions.
        def failures
          @ctx.endpoint_failures ||= EndpointFailures.new
        end

        # The endpoints not known to fail; the others are recorded as skipped,
        # with one warning for the run.
        def skip_known(endpoints)
          endpoints.reject do |endpoint|
            known = failures[endpoint] or next false
            drop(endpoint, "skipped", failures.skip_reason(known))
            failures.warning_once(known)&.then { |text| @ctx.listener.warning(text) }
            true
          end
        end

        # Leaves endpoint out of this session: its trials counted as done, a
        # setups.jsonl line saying why (a failure is reported as one).
        def drop(endpoint, status, reason)
          @endpoints << endpoint
          left = @trials.count { |t| t.endpoint == endpoint && !@ctx.store.trial_keys.include?(t.key) }
          left.times { @ctx.progress.next! }
          record = EndpointFailures.record(@setup, @rep, endpoint, status: status, reason: reason, trials_skipped: left)
          @ctx.store.append_setup(record)
          @ctx.listener.setup_failed(record) if status == "failed"
        end

        # The setup failed (error: a SetupFailed): the trials of its endpoints
        # not left out already are counted as done.
        def setup_failed(error)
          left = @trials.count { |t| !include?(t.endpoint) && !@ctx.store.trial_keys.include?(t.key) }
          left.times { @ctx.progress.next! }
          record = { "setup" => @setup.label, "server" => @setup.server, "repetition" => @rep, "status" => "failed",
                     "reason" => error.message, "log_tail" => error.log_tail, "trials_skipped" => left,
                     "at" => Clock.wall_iso8601 }
          @ctx.store.append_setup(record)
          @ctx.listener.setup_failed(record)
        end
      end
    end
  end
end
