# frozen_string_literal: true

require_relative "json_object"
require_relative "result"
require_relative "../error"

module Rackbench
  module Load
    # Reads siege 4's final statistics, printed as one JSON object by -j
    # (json_output), never its screen text. Also turns siege's own
    # complaint into a one-line error message when it failed.
    #
    # Mapping onto Result (siege's units: seconds with two decimals, and MB):
    # - requests: "transactions" (HTTP responses, of any status).
    # - duration_s: "elapsed_time", siege's own measure (times(), 10 ms ticks).
    # - bytes: "data_transferred" MB × 1,048,576: body bytes only, in steps
    #   of 0.01 MB (10,486 bytes), so a short run on a small body reads 0.
    # - errors: status <- transactions - successful_transactions (responses
    #   of 400 and above); read <- failed_transactions, siege's socket
    #   failures (refused, reset, a closed keep-alive connection, a response
    #   ended by close), given only as one total, so connect/write/timeout
    #   are 0. A response that never comes is counted nowhere.
    # - latency_ms: min <- shortest_transaction, max <- longest_transaction
    #   (10 ms steps: anything faster reads 0); mean, see below; siege has no
    #   percentiles nor stdev: those are nil. All nil when nothing answered.
    # - mean: "response_time" is total/transactions rounded to 10 ms; siege
    #   also prints "concurrency" = total/elapsed, so total = concurrency ×
    #   elapsed recovers it to ~0.5 % (src/data.c). The one with the smaller
    #   rounding bound is taken.
    module SiegeOutput
      OBJECT = /^\{.*?^\}/m.freeze
      ANSI = /\e\[[0-9;]*m/.freeze # siege colours "[error]" even with color = off
      COMPLAINT = /\A\[(fatal|error|alert)\]/.freeze
      BYTES_PER_MB = 1024 * 1024
      ROUNDING_S = 0.005 # siege prints seconds with two decimals
      NIL_LATENCY = %w[min mean stdev max p50 p75 p90 p99 p99.9].to_h { |k| [k, nil] }.freeze

      module_function

      # text: siege's whole log; failures: the failures limit it ran with
      # (a run that reached it was aborted by siege, and raises).
      def parse(text, command: nil, failures: nil)
        json = extract(text)
        aborted!(json, failures)
        transactions = count(json, "transactions")
        Result.new(engine: "siege", requests: transactions, duration_s: number(json, "elapsed_time"),
                   bytes: (number(json, "data_transferred") * BYTES_PER_MB).round,
                   errors: errors(json, transactions), latency_ms: latency(json, transactions),
                   loop: "closed", command: command)
      end

      # One line saying why siege failed, from siege's own words.
      def failure_message(text)
        lines = text.to_s.gsub(ANSI, "").lines.map(&:strip).reject(&:empty?)
        if lines.any? { |l| l.start_with?("Usage: siege") }
          return "siege rejected its arguments: see its usage text in the log"
        end

        line = lines.reverse.find { |l| l.match?(COMPLAINT) } || lines.last || "siege printed nothing"
        "siege failed: #{line}"
      end

      def extract(text)
        object = text.to_s.gsub(ANSI, "").scan(OBJECT).last
        JsonObject.parse(object, what: "siege's -j output",
                                 missing: "siege printed no JSON statistics: was it run with -j (json_output)?")
      end

      # siege stops a run once its socket failures reach the failures
      # setting, exits 0 and (with -j) says nothing about it.
      def aborted!(json, failures)
        return unless failures

        failed = count(json, "failed_transactions")
        return if failed < failures

        raise Error, "siege gave up after #{failed} socket failures in #{number(json, 'elapsed_time')} s " \
                     "(its failures limit is #{failures} per run; raise it with failures:); a server that resets " \
                     "keep-alive connections or ends responses by closing makes siege count failures while it answers"
      end

      def errors(json, transactions)
        status = transactions - count(json, "successful_transactions")
        { "connect" => 0, "read" => count(json, "failed_transactions"), "write" => 0, "timeout" => 0,
          "status" => [status, 0].max }
      end

      def latency(json, transactions)
        return NIL_LATENCY.dup if transactions.zero?

        NIL_LATENCY.merge("min" => number(json, "shortest_transaction") * 1000,
                          "mean" => mean_s(json, transactions) * 1000,
                          "max" => number(json, "longest_transaction") * 1000)
      end

      def mean_s(json, transactions)
        reported = number(json, "response_time")
        concurrency = number(json, "concurrency")
        elapsed = number(json, "elapsed_time")
        return reported if concurrency.zero? || elapsed.zero?

        derived = concurrency * elapsed / transactions
        bound = derived * ((ROUNDING_S / concurrency) + (ROUNDING_S / elapsed))
        bound < ROUNDING_S ? derived : reported
      end

      def count(json, key)
        value = json[key]
        return value if value.is_a?(Integer) && !value.negative?

        raise Error, "siege's statistics have #{key}=#{value.inspect}, expected a whole number"
      end

      def number(json, key)
        value = json[key]
        return value.to_f if value.is_a?(Numeric) && !value.negative?

        raise Error, "siege's statistics have #{key}=#{value.inspect}, expected a number"
      end

      private_class_method :extract, :aborted!, :errors, :latency, :mean_s, :count, :number
    end
  end
end
