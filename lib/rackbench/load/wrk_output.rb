# frozen_string_literal: true

require "json"
require_relative "result"
require_relative "wrk_line"
require_relative "count_window"

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
      COMPLETIONS = "RACKBENCH_COMPLETIONS"
      LATENCY_KEYS = %w[min mean stdev max p50 p75 p90 p99 p99.9].freeze

      module_function

      # text: wrk's whole log; command: the argv it ran (kept in the Result).
      # With a RACKBENCH_COMPLETIONS line (wrk/window.lua), requests and
      # duration_s are those of the CountWindow (when the run holds one).
      def parse(text, command: nil)
        json = extract(text, "wrk/report.lua")
        result = Result.new(engine: "wrk", requests: count(json, "requests"),
                            duration_s: count(json, "duration_us") / WrkLine::US_PER_S, bytes: count(json, "bytes"),
                            errors: errors(json), latency_ms: latency(json, "latency_us", "latency"), loop: "closed",
                            command: command)
        times = completions(text)
        times ? windowed(result, times, connections(command)) : result
      end

      # Response times in seconds since the run started, or nil.
      def completions(text)
        line = text.to_s.scan(/^#{COMPLETIONS} (.*)$/).flatten.last or return nil
        list = JSON.parse(line)
        raise Error, "wrk's #{COMPLETIONS} line is not a list of whole numbers" unless list.is_a?(Array) && list.all?(Integer)

        list.map { |us| us / WrkLine::US_PER_S }
      rescue JSON::ParserError
        raise Error, "wrk's #{COMPLETIONS} line is garbled JSON: #{line[0, 80]}"
      end

      def windowed(result, times, connections)
        window = connections && CountWindow.call(times, connections) or return result
        result.dup.tap do |r|
          r.requests = window.requests
          r.duration_s = window.duration_s
          r.window = { "start_s" => window.start_s.round(6), "end_s" => window.end_s.round(6),
                       "run_requests" => result.requests, "run_duration_s" => result.duration_s }
        end
      end

      def connections(command)
        at = command&.index("-c")
        at && Integer(command[at + 1], exception: false)
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

      private_class_method :rejected_arguments, :humanise, :completions, :windowed, :connections
    end
  end
end
