# frozen_string_literal: true

require "json"
require_relative "error"
require_relative "server/http_probe"

module Rackbench
  # Verification before load (TechEmpower's idea): the first responses of
  # each endpoint are checked, so a setup that serves errors or wrong answers
  # fails with the reason instead of posting a fast, meaningless number.
  #
  # The arena's endpoints are checked for content (fibonacci's value, pi's
  # digits, /server naming the server under test), and so are those of a
  # response carrying WORKLOAD_HEADER (the built-in Rails app, which answers
  # as the arena does); any other endpoint (the user's app, --url) for a
  # status below 400. What is learnt about the responses (close-delimited
  # bodies, Connection: close) is returned so the runner can classify wrk's
  # errors.
  class Verify
    ATTEMPTS = 3
    WORKLOAD_HEADER = "x-rackbench-workload"
    Outcome = Struct.new(:endpoint, :status, :content_type, :close_delimited, :connection_close, keyword_init: true) do
      def to_h
        super.transform_keys(&:to_s)
      end
    end

    def initialize(host:, port:, server: nil, arena: true, upstream_bytes: nil, timeout: 30)
      @host = host
      @port = port
      @server = server
      @arena = arena
      @upstream_bytes = upstream_bytes
      @timeout = timeout
    end

    # Returns an Outcome; raises SetupFailed with the reason on a wrong answer.
    def call(endpoint)
      res = nil
      ATTEMPTS.times do
        res = Server::HttpProbe.get(@host, @port, endpoint, timeout: @timeout)
        raise failed(endpoint, "no response within #{@timeout} s") unless res

        problem = check(endpoint, res)
        raise failed(endpoint, problem) if problem
      end
      Outcome.new(endpoint: endpoint, status: res.status, content_type: res.content_type,
                  close_delimited: res.close_delimited?, connection_close: res.connection_close?)
    end

    private

    def check(endpoint, res)
      return "status #{res.status}: #{res.body.to_s.lines.first.to_s.strip[0, 120]}" if res.status >= 400
      return nil unless @arena || res.headers.to_h.key?(WORKLOAD_HEADER)

      path = endpoint.split("?").first
      ArenaChecks.problem(path, res, server: @server, upstream_bytes: @upstream_bytes)
    end

    def failed(endpoint, problem)
      SetupFailed.new("verification of #{endpoint} failed: #{problem}")
    end
  end
end
require_relative "verify/arena_checks"
