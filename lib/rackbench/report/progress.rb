# frozen_string_literal: true

require "uri"
require_relative "listener"
require_relative "number_format"

module Rackbench
  module Report
    # Progress lines on the terminal (stderr) while a run goes on.
    class Progress < Listener
      def initialize(io)
        super()
        @io = io
      end

      def run_started(meta)
        @io.puts "rackbench #{meta['rackbench']}: #{meta['plan']['trials']} trials into #{meta['run_dir']}"
      end

      def setup_started(setup, repetition)
        @io.puts "booting #{setup.label}#{repetition > 1 ? " (repetition #{repetition})" : ''} ..."
      end

      def note(text)
        @io.puts text
      end

      def warming_up(setup, url)
        @io.puts "  warming up #{setup.label} on #{URI(url).request_uri}"
      rescue URI::Error
        nil
      end

      # What each kind of error counted is, in words (Runner::Errors::KINDS).
      ERROR_WORDS = { "status" => "with HTTP status >= 400", "timeout" => "timed out",
                      "read" => "read (a connection closed before its response)", "connect" => "connect", "write" => "write" }.freeze

      def trial_finished(r, index, total)
        errors = errors_text(r)
        level = r["rate"] ? "r=#{format('%g', r['rate'])}" : "c=#{r['concurrency']}"
        invalid = r["valid"] == false ? "  INVALID: #{r['invalid_reason']}" : ""
        health = r["health"] ? "  health max #{NumberFormat.ms(r['health']['max_ms'])}#{health_failures(r['health'])}" : ""
        @io.puts format("  [%d/%d] %-16s %-22s %-6s %10s req/s  mean %s  p99 %s (%s-loop)%s%s%s",
                        index, total, r["setup"], r["endpoint"], level, NumberFormat.rps(r["rps"]),
                        NumberFormat.ms(r.dig("latency_ms", "mean")), NumberFormat.ms(r.dig("latency_ms", "p99")),
                        r["loop"], errors, health, invalid)
      end

      # "  1 error: 1 read (a connection closed before its response)": the
      # server's failures (wrk's artifacts left out, Runner::Errors) by kind,
      # when the kinds add up to the count; the count alone otherwise.
      def errors_text(r)
        total = r["error_total"].to_i
        return "" unless total.positive?

        kinds = error_kinds(r)
        "  #{NumberFormat.count(total, 'error')}#{kinds && ": #{kinds}"}"
      end

      def error_kinds(r)
        counts = r["errors"].is_a?(Hash) ? r["errors"].transform_values(&:to_i) : {}
        artifacts = r["error_artifacts"].is_a?(Hash) ? r["error_artifacts"] : {}
        counts["read"] = counts["read"].to_i - artifacts["read_close_delimited"].to_i - artifacts["read_after_error_response"].to_i
        shown = ERROR_WORDS.select { |kind, _| counts[kind].to_i.positive? }
        return nil if shown.empty? || shown.sum { |kind, _| counts[kind] } != r["error_total"].to_i

        shown.map { |kind, words| "#{counts[kind]} #{words}" }.join(", ")
      end

      def health_failures(health)
        health["failures"].positive? ? " (#{health['failures']} failed)" : ""
      end

      def setup_failed(record)
        @io.puts "  FAILED #{record['reason']}"
      end

      def warning(text)
        @io.puts "warning: #{text}"
      end
    end
  end
end
