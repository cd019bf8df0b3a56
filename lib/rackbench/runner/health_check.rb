# frozen_string_literal: true

require "net/http"
require_relative "../process_control/http_probe"
require_relative "../clock"
require_relative "../deadline"
require_relative "../periodic"
require_relative "../stats/summary"

module Rackbench
  class Runner
    # A load balancer's health check during a trial (seed 002: failing health
    # checks got containers killed under load). A separate, low-rate client
    # in a background thread sends GET path every `interval` seconds on its
    # own keep-alive connection (a new one after any failure), and records
    # each check's latency on the monotonic clock. A check slower than
    # `timeout` is a failure, as a load balancer would count it.
    #
    # Limits: checks are closed-loop (a check waits for the previous one),
    # on Periodic's schedule (a check slower than the interval skips the
    # ticks it overran rather than firing them in a burst), and the thread
    # shares rackbench's process with the sampler (both are light).
    class HealthCheck
      FAILURES = [SystemCallError, IOError, Timeout::Error, Net::HTTPBadResponse, EOFError, OpenSSL::SSL::SSLError].freeze

      # tls: the run's certificate (--tls): checks go over HTTPS, as the load does.
      def initialize(host:, port:, path:, interval: 0.5, timeout: 2.0, tls: nil)
        @tls = tls
        @host = host
        @port = port
        @path = path
        @interval = interval
        @timeout = timeout
        @latencies = []
        @failures = Hash.new(0)
      end

      def start
        @loop = Periodic.new(@interval) { check }.start
        self
      end

      # Wakes the thread from its pause at once (a check in flight still
      # finishes, within its timeout), so a trial does not wait out an interval.
      def stop
        @loop&.stop(within: @timeout + 1)
        @http&.finish if @http&.started?
        summary
      rescue IOError
        summary
      end

      def summary
        lat = Stats::Summary.of(@latencies)
        { "path" => @path, "interval_s" => @interval, "timeout_s" => @timeout, "checks" => @latencies.size + failed,
          "failures" => failed, "failure_kinds" => @failures.dup, "median_ms" => lat.median&.round(2),
          "max_ms" => lat.max&.round(2) }
      end

      private

      def failed
        @failures.values.sum
      end

      # The answer's body is read bounded as the probes read theirs
      # (ProcessControl::HttpProbe.read_bounded: at most 1 MiB kept, 8 MiB
      # read, within the timeout), so a health path that streams without end
      # is a failed check, not a thread stuck reading it.
      def check
        started = Clock.now
        deadline = Deadline.in(@timeout)
        code = nil
        unfinished = nil
        catch(:cut) do
          connection.request_get(@path) do |res|
            code = res.code.to_i
            unfinished = ProcessControl::HttpProbe.read_bounded(res, +"", deadline, @timeout)
            throw :cut if unfinished
          end
        end
        ms = (Clock.now - started) * 1000
        return failure("body did not end") if unfinished
        return failure("status #{code}") unless code.between?(200, 399)

        @latencies << ms
      rescue Net::OpenTimeout, Net::ReadTimeout
        failure("timeout")
      rescue *FAILURES
        failure("connection")
      end

      def failure(kind)
        @failures[kind] += 1
        @http&.finish if @http&.started?
        @http = nil
      rescue IOError
        @http = nil
      end

      def connection
        @http ||= Net::HTTP.new(@host, @port).tap do |http|
          http.open_timeout = @timeout
          http.read_timeout = @timeout
          http.max_retries = 0
          ProcessControl::HttpProbe.secure(http, @tls) if @tls
          http.start
        end
      end
    end
  end
end
