# frozen_string_literal: true

require_relative "result"
require_relative "open_loop_validity"
require_relative "wrk_line"
require_relative "../error"

module Rackbench
  module Load
    # Reads the one RACKBENCH_OPEN line printed by wrk/open_loop.lua (machine
    # output, never wrk's screen text: wrk's own latency table in the same
    # log is closed-loop and corrected twice once requests are paced) into a
    # Load::Result with loop "open", and judges it with OpenLoopValidity.
    #
    # Units: the script writes microseconds; the Result holds seconds
    # (duration_s) and milliseconds (latency_ms, service_ms,
    # schedule_slip_ms). Latency figures are nil when nothing was timed.
    # requests counts answered requests; in-flight and never-sent ones are
    # in latency_ms as lower bounds but not in requests; unanswered_ms holds
    # the in-flight requests' ages when wrk stopped (Runner::Errors counts
    # the hung ones as timeouts, which wrk never does).
    module WrkOpenOutput
      extend WrkLine

      MARKER = "RACKBENCH_OPEN"
      LATENCY_KEYS = %w[min mean stdev max p50 p75 p90 p99 p99.9 p99.99].freeze

      module_function

      def parse(text, command: nil)
        json = extract(text, "wrk/open_loop.lua")
        duration_s = count(json, "duration_us") / WrkLine::US_PER_S
        target = rate(json)
        completed = count(json, "completed")
        achieved = duration_s.positive? ? completed / duration_s : 0.0
        slip = slip(json)
        # Answers per second over the window's second half: a server that keeps
        # up answers at the offered rate there; one that falls behind answers
        # at its own capacity while its queue grows.
        tail = json["answered_in_second_half"]
        tail_rate = tail && duration_s.positive? ? tail / (duration_s / 2) : nil
        valid, reason = OpenLoopValidity.check(target_rate: target, achieved_rate: achieved, slip: slip,
                                               tail_rate: tail_rate, planned: count(json, "planned"),
                                               completed: completed, connections: count(json, "connections"),
                                               duration_s: duration_s)
        Result.new(engine: "wrk-open", requests: completed, duration_s: duration_s, bytes: count(json, "bytes"),
                   errors: errors(json), latency_ms: latency(json, "latency_us"), loop: "open", command: command,
                   service_ms: latency(json, "service_us"), target_rate: target, achieved_rate: achieved,
                   connections: count(json, "connections"), planned: count(json, "planned"),
                   in_flight: count(json, "in_flight"), unsent: count(json, "unsent"), schedule_slip_ms: slip,
                   valid: valid, invalid_reason: reason, unanswered_ms: unanswered(json))
      end

      # nil when unknown (a script without the ages).
      def unanswered(json)
        ages = json["in_flight_age_us"]
        return nil unless ages.is_a?(Array) && ages.all?(Numeric)

        ages.map { |us| (us / 1000.0).round(3) }
      end

      def rate(json)
        value = json["target_rate"]
        return value.to_f if value.is_a?(Numeric) && value.positive?

        raise Error, "wrk's #{MARKER} line has target_rate=#{value.inspect}, expected requests per second"
      end

      def slip(json)
        given = section(json, "slip_us")
        { "mean" => milliseconds(given, "mean", "slip_us"), "max" => milliseconds(given, "max", "slip_us"),
          "sends" => count(given, "sends"), "late" => count(given, "over_10ms"), "early" => count(given, "early"),
          "queued" => count(json, "queued") }
      end

      private_class_method :rate, :slip, :unanswered
    end
  end
end
