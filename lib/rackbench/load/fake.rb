# frozen_string_literal: true

require_relative "result"
require_relative "../error"
require_relative "../run_file"
require_relative "registry"

module Rackbench
  module Load
    # A load engine that measures nothing: it answers the engine contract
    # (name, available?, version, command, run) with results computed from its
    # parameters, so the whole pipeline runs in a unit test in milliseconds.
    # No process is spawned and no traffic is sent.
    #
    #   Fake.new(rps: 1000, latency_ms: 5.0, errors: { "status" => 3 })
    #   Fake.new(hook: ->(call) { { rps: 400.0 * call.concurrency } })
    #
    # The hook receives the Call and returns overrides (rps:, latency_ms:,
    # errors:, bytes_per_response:); it may raise Rackbench::Error to act out
    # a failed run. Latency figures are fixed multiples of latency_ms (p50 =
    # mean = latency_ms, ordered min <= p50 <= ... <= max).
    class Fake
      Load.register("fake", order: 6, process: nil, listed: false, loads: false) { new }
      Call = Struct.new(:url, :concurrency, :duration, :threads, :timeout, :log_path, keyword_init: true)

      LATENCY_SHAPE = { "min" => 0.5, "mean" => 1.0, "stdev" => 0.25, "max" => 4.0, "p50" => 1.0,
                        "p75" => 1.2, "p90" => 1.5, "p99" => 2.0, "p99.9" => 3.0 }.freeze

      attr_reader :calls

      def initialize(rps: 1000.0, latency_ms: 5.0, errors: {}, bytes_per_response: 100,
                     version: "1.0.0", available: true, hook: nil)
        @defaults = { rps: rps, latency_ms: latency_ms, errors: errors, bytes_per_response: bytes_per_response }
        @version = version
        @available = available
        @hook = hook
        @calls = []
      end

      def name
        "fake"
      end

      def available?
        @available
      end

      def version
        @available ? @version : nil
      end

      def command(url:, concurrency:, duration:, threads: nil, timeout: 30)
        ["fake-load", "-c", concurrency.to_s, "-t", (threads || 1).to_s, "-d", "#{duration}s",
         "--timeout", "#{timeout}s", url.to_s]
      end

      def run(url:, concurrency:, duration:, log_path:, threads: nil, timeout: 30)
        raise Error, "fake load engine is set as unavailable" unless @available

        call = Call.new(url: url, concurrency: concurrency, duration: duration, threads: threads,
                        timeout: timeout, log_path: log_path)
        @calls << call
        params = @defaults.merge(@hook ? @hook.call(call).to_h : {})
        result = build(params, call)
        log(call, result)
        result
      end

      private

      def build(params, call)
        requests = (params[:rps] * call.duration).round
        Result.new(engine: "fake", requests: requests, duration_s: call.duration.to_f,
                   bytes: requests * params[:bytes_per_response], errors: errors(params[:errors]),
                   latency_ms: LATENCY_SHAPE.transform_values { |k| k * params[:latency_ms].to_f },
                   loop: "closed", command: command(url: call.url, concurrency: call.concurrency,
                                                    duration: call.duration, threads: call.threads,
                                                    timeout: call.timeout))
      end

      def errors(given)
        Result::ERROR_KINDS.to_h { |kind| [kind, 0] }.merge(given.transform_keys(&:to_s))
      end

      def log(call, result)
        RunFile.append(call.log_path, "fake load: #{call.concurrency} connections for #{call.duration} s on " \
                                      "#{call.url}: #{result.requests} requests\n")
      end
    end
  end
end
