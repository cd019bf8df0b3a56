# frozen_string_literal: true

require "json"
require_relative "../error"
require_relative "../clock"
require_relative "../process_control/http_probe"
require_relative "../process_control/error_line"
require_relative "../plan/request_path"

module Rackbench
  class Runner
    # Verification before load (TechEmpower's idea): the first responses of
    # each endpoint are checked, so a setup that serves errors or wrong answers
    # fails with the reason instead of posting a fast, meaningless number.
    #
    # Every endpoint must answer 2xx, or one of the statuses the user expects
    # (--expect-status): a redirect is not the page (a Rails app in production
    # with force_ssl answers every http request with a 301 to https, and wrk
    # would time those instead of the pages). The arena's endpoints are then
    # checked for content (fibonacci's value, pi's digits, /server naming the
    # server under test), and so are those of a response carrying
    # WORKLOAD_HEADER (the built-in Rails app, which answers as the arena
    # does). What is learnt about the responses (close-delimited bodies, no
    # keep-alive) is returned so the runner can classify wrk's errors; the
    # probe asks for keep-alive as wrk does (ProcessControl::HttpProbe).
    class Verify
      ATTEMPTS = 3
      WORKLOAD_HEADER = "x-rackbench-workload"
      # One endpoint's wrong answer. status: what it answered (nil: nothing).
      class Failed < SetupFailed
        attr_reader :endpoint, :status

        def initialize(message, endpoint:, status: nil)
          super(message)
          @endpoint = endpoint
          @status = status
        end

        # A redirect or a 4xx is the app's answer to the path (its routes,
        # its force_ssl), the same under every server; a 5xx, no answer or a
        # wrong body may be the server's doing.
        def app_answer?
          !@status.nil? && @status.between?(300, 499)
        end
      end

      Outcome = Struct.new(:endpoint, :status, :content_type, :close_delimited, :connection_close, :tls, keyword_init: true) do
        def to_h
          super.transform_keys(&:to_s)
        end
      end

      # A server given by --url (external) that is silent this long over
      # plain HTTP is asked whether it speaks HTTPS before the whole timeout
      # is waited out.
      QUICK_S = 3

      # tls: the run's certificate (--tls): every check goes over HTTPS and the server must present it.
      # external: a server given by --url, which may be an HTTPS one asked over http://.
      def initialize(host:, port:, server: nil, arena: true, upstream_bytes: nil, timeout: 30, expect_status: nil,
                     server_log: nil, tls: nil, external: false)
        @external = external
        @tls = tls
        @host = host
        @port = port
        @server = server
        @arena = arena
        @upstream_bytes = upstream_bytes
        @timeout = timeout
        @expect = expect_status
        @server_log = server_log
      end

      # Returns an Outcome; raises Failed (a SetupFailed) with the reason on a wrong answer.
      def call(endpoint)
        res = nil
        ATTEMPTS.times do
          started = Clock.now
          res = answer(endpoint)
          raise failed(endpoint, "no response within #{@timeout} s#{log_says}") unless res
          if res == :closed
            raise failed(endpoint, "the server closed the connection without an answer, " \
                                   "#{format('%.1f', Clock.now - started)} s after the request#{log_says}")
          end
          raise failed(endpoint, "the TLS handshake failed: #{res.handshake}") if res.handshake
          raise failed(endpoint, "the answer is not HTTP: it began #{res.invalid}") if res.invalid
          raise failed(endpoint, "status #{res.status}, but the body did not end: #{res.incomplete}", res.status) if res.incomplete

          problem = check(endpoint, res)
          raise failed(endpoint, problem, res.status) if problem
        end
        Outcome.new(endpoint: endpoint, status: res.status, content_type: res.content_type,
                    close_delimited: res.close_delimited?, connection_close: res.connection_close?, tls: tls_of(res))
      end

      private

      # The response, or nil; a refused connection, or an external server
      # that speaks HTTPS to a plain HTTP request, fails at once.
      def answer(endpoint)
        quick = @external && !@tls && @timeout > QUICK_S
        res = get(endpoint, quick ? QUICK_S : @timeout, quick ? :silent : nil)
        raise failed(endpoint, "connection refused: nothing listens on #{@host}:#{@port} (is the server running?)") if res == :refused
        return res unless quick && (res.nil? || res == :silent)

        if ProcessControl::HttpProbe.speaks_tls?(@host, @port)
          raise failed(endpoint, "#{@host}:#{@port} speaks HTTPS (a TLS handshake succeeded), not plain HTTP: give the URL as https://")
        end
        res = get(endpoint, @timeout, nil) if res == :silent
        res == :refused ? nil : res
      end

      def get(endpoint, timeout, silence)
        ProcessControl::HttpProbe.get(@host, @port, RequestPath.encode(endpoint), timeout: timeout, tls: @tls,
                                                                                  on_silence: silence, on_refused: :refused,
                                                                                  on_closed: :closed)
      end

      # "; the server log says: ..." when the log names an error (workers
      # dying on the app's error while the master holds the port), else "".
      def log_says
        return "" unless @server_log

        line = ProcessControl::ErrorLine.last(ProcessControl::ErrorLine.tail(@server_log))
        line ? "; the server log says: #{line} (#{@server_log})" : ""
      end

      # The handshake's version and cipher, and whose certificate it was.
      def tls_of(res)
        res.tls&.merge("certificate" => @tls&.cert_path ? "run" : "server")
      end

      def check(endpoint, res)
        problem = Status.problem(res, expect: @expect, server_log: @server_log)
        return problem if problem
        return nil unless res.status.between?(200, 299) && (@arena || res.headers.to_h.key?(WORKLOAD_HEADER))

        path = endpoint.split("?").first
        ArenaChecks.problem(path, res, server: @server, upstream_bytes: @upstream_bytes)
      end

      def failed(endpoint, problem, status = nil)
        Failed.new("verification of #{endpoint} failed: #{problem}", endpoint: endpoint, status: status)
      end
    end
  end
end
require_relative "verify/arena_checks"
require_relative "verify/status"
