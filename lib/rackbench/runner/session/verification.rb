# frozen_string_literal: true

require "uri"
require_relative "../../error"
require_relative "../../tls"
require_relative "../verify"
require_relative "liveness"

module Rackbench
  class Runner
    class Session
      # The verify phase (--verify), once the server is up: each endpoint's
      # first responses checked (Verify). An endpoint that answers wrongly is
      # kept in the run's EndpointFailures when the answer is the app's
      # (skipped on the next setups), and is returned as failed for the
      # session to leave out; none answering right, or the server dying
      # meanwhile, fails the setup (SetupFailed).
      class Verification
        Outcome = Struct.new(:checks, :failed, keyword_init: true)

        # instance, front: what the session booted (nil with --url);
        # failures: the run's EndpointFailures.
        def initialize(context, setup, place, instance:, front:, failures:)
          @ctx = context
          @config = context.config
          @setup = setup
          @place = place
          @instance = instance
          @front = front
          @failures = failures
        end

        # An Outcome: checks {endpoint => Verify::Outcome} of the endpoints
        # that answer right, failed {endpoint => Verify::Failed} of those that
        # do not. Raises SetupFailed when none does, or when the server died.
        def call(endpoints)
          return Outcome.new(checks: {}, failed: {}) unless @config[:verify]

          verifier = verifier_for
          failed = {}
          checks = endpoints.each_with_object({}) do |endpoint, out|
            out[endpoint] = verify_endpoint(verifier, endpoint)
          rescue Verify::Failed => e
            Liveness.check!(@setup, @instance, @front)
            failed[endpoint] = e
          end
          failed.each { |endpoint, e| @failures.add(endpoint, e, @setup.label) }
          if checks.empty? && failed.any?
            raise failed.size == 1 ? failed.values.first : SetupFailed.new(failed.values.map(&:message).join("; "))
          end

          Outcome.new(checks: checks, failed: failed)
        end

        private

        # A scenario is verified path by path; its outcome marks close-delimited
        # responses if any of its paths has them.
        def verify_endpoint(verifier, endpoint)
          scenario = @ctx.plan.scenario
          return verifier.call(endpoint) unless scenario && endpoint == scenario.label

          outcomes = scenario.paths.map { |path| verifier.call(path) }
          outcomes.first.dup.tap do |o|
            o.endpoint = endpoint
            o.close_delimited = outcomes.any?(&:close_delimited)
            o.connection_close = outcomes.any?(&:connection_close)
          end
        end

        def verifier_for
          if @instance
            Verify.new(host: @place.bind, port: (@front || @instance).port, server: @setup.server, arena: @ctx.app.arena?,
                       upstream_bytes: @config[:upstream_bytes], timeout: @config[:timeout],
                       expect_status: @config[:expect_status], server_log: @instance.log_path, tls: @ctx.tls)
          else
            uri = URI(@config[:url])
            Verify.new(host: uri.host, port: uri.port, arena: false, timeout: @config[:timeout],
                       expect_status: @config[:expect_status], tls: Tls.for_url(@config[:url]), external: true)
          end
        end
      end
    end
  end
end
