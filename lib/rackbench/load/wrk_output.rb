# frozen_string_literal: true

require_relative "result"
require_relative "wrk_line"

module Rackbench
  module Load
    # Reads what wrk wrote to its log: the one RACKBENCH_RESULT line printed
    # by wrk/report.lua (machine output), never wrk's screen text. Also turns
    # wrk's own complaint into a one-line error message when it failed.
    #
    # Units: report.lua writes microseconds; the Result holds seconds
    # (duration_s) and milliseconds (latency_ms). A latency figure is nil when
    # wrk recorded no latency sample at all (no response, or every response
    # slower than --timeout, which wrk counts as a timeout instead).
    module WrkOutput
      extend WrkLine

      MARKER = "RACKBENCH_RESULT"
      LATENCY_KEYS = %w[min mean stdev max p50 p75 p90 p99 p99.9].freeze

      module_function

      # text: wrk's whole log; command: the argv it ran (kept in the Result).
      def parse(text, command: nil)
        json = extract(text, "wrk/report.lua")
        Result.new(engine: "wrk", requests: count(json, "requests"),
                   duration_s: count(json, "duration_us") / WrkLine::US_PER_S, bytes: count(json, "bytes"),
                   errors: errors(json), latency_ms: latency(json, "latency_us", "latency"), loop: "closed",
                   command: command)
      end

      # One line saying why wrk failed, from wrk's own words.
      def failure_message(text, url: nil)
        lines = text.to_s.lines.map(&:strip).reject(&:empty?)
        usage_at = lines.index { |l| l.start_with?("Usage: wrk") }
        return rejected_arguments(lines.first(usage_at)) if usage_at

        humanise(lines.last || "wrk printed nothing", url)
      end

      # wrk prints its usage text (no reason) for a bad option value, after
      # a reason for a few checks ("number of connections must be >= threads").
      def rejected_arguments(before_usage)
        reason = before_usage.last || "an option value it cannot parse (durations are whole seconds)"
        "wrk rejected its arguments: #{reason}"
      end

      def humanise(line, url)
        match = line.match(/\Aunable to connect to (\S+) (.+)\z/)
        return "wrk could not connect to #{url || match[1]}: #{match[2]}; is the server listening?" if match

        "wrk failed: #{line}"
      end

      private_class_method :rejected_arguments, :humanise
    end
  end
end
