# frozen_string_literal: true

module Rackbench
  module Load
    # What one load-generator run measured. Every engine (wrk, ab, siege, the
    # fake) returns one of these; the runner stores it as part of a trial.
    #
    # latency_ms keys: "min", "mean", "stdev", "max", "p50", "p75", "p90",
    #   "p99", "p99.9" (milliseconds, Float). For closed-loop engines these are
    #   closed-loop figures: they hide coordinated omission (see loop).
    # errors keys: "connect", "read", "write", "timeout", "status" (Integer).
    # loop: "closed" or "open".
    Result = Struct.new(:engine, :requests, :duration_s, :bytes, :errors, :latency_ms, :loop, :command,
                        keyword_init: true) do
      ERROR_KINDS = %w[connect read write timeout status].freeze

      def rps
        duration_s.positive? ? requests / duration_s : 0.0
      end

      def error_total
        errors.values_at(*ERROR_KINDS).compact.sum
      end

      def to_h
        super.transform_keys(&:to_s)
      end
    end
  end
end
