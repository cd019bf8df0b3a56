# frozen_string_literal: true

require "json"
require_relative "result"
require_relative "../error"

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
      MARKER = "RACKBENCH_RESULT"
      LINE = /^#{MARKER} (.*)$/.freeze
      LATENCY_KEYS = %w[min mean stdev max p50 p75 p90 p99 p99.9].freeze
      US_PER_MS = 1000.0
      US_PER_S = 1_000_000.0

      module_function

      # text: wrk's whole log; command: the argv it ran (kept in the Result).
      def parse(text, command: nil)
        json = extract(text)
        Result.new(engine: "wrk", requests: count(json, "requests"),
                   duration_s: count(json, "duration_us") / US_PER_S, bytes: count(json, "bytes"),
                   errors: errors(json), latency_ms: latency(json), loop: "closed", command: command)
      end

      # One line saying why wrk failed, from wrk's own words.
      def failure_message(text, url: nil)
        lines = text.to_s.lines.map(&:strip).reject(&:empty?)
        usage_at = lines.index { |l| l.start_with?("Usage: wrk") }
        return rejected_arguments(lines.first(usage_at)) if usage_at

        humanise(lines.last || "wrk printed nothing", url)
      end

      def extract(text)
        line = text.to_s.scan(LINE).flatten.last
        raise Error, "wrk printed no #{MARKER} line: was it run with -s wrk/report.lua?" unless line

        json = JSON.parse(line)
        raise Error, "wrk's #{MARKER} line is not a JSON object: #{line[0, 80]}" unless json.is_a?(Hash)

        json
      rescue JSON::ParserError
        raise Error, "wrk's #{MARKER} line is garbled JSON: #{line[0, 80]}"
      end

      def count(hash, key)
        value = hash[key]
        return value if value.is_a?(Integer) && !value.negative?

        raise Error, "wrk's #{MARKER} line has #{key}=#{value.inspect}, expected a whole number"
      end

      def errors(json)
        given = section(json, "errors")
        Result::ERROR_KINDS.to_h { |kind| [kind, count(given, kind)] }
      end

      def latency(json)
        given = section(json, "latency_us")
        LATENCY_KEYS.to_h { |key| [key, milliseconds(given, key)] }
      end

      def section(json, key)
        value = json[key]
        return value if value.is_a?(Hash)

        raise Error, "wrk's #{MARKER} line has no #{key} object"
      end

      def milliseconds(hash, key)
        raise Error, "wrk's #{MARKER} line has no latency #{key}" unless hash.key?(key)

        value = hash[key]
        return nil if value.nil?
        return value / US_PER_MS if value.is_a?(Numeric) && !value.negative?

        raise Error, "wrk's #{MARKER} line has latency #{key}=#{value.inspect}, expected microseconds"
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

      private_class_method :extract, :count, :errors, :latency, :section, :milliseconds,
                           :rejected_arguments, :humanise
    end
  end
end
