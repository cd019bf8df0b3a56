# frozen_string_literal: true

require_relative "../error"
require_relative "error_rate"

module Rackbench
  module Stats
    # A service-level objective a load level must meet: p99 latency at most
    # p99_ms, server errors at most error_rate of all responses, an open-loop
    # trial valid (its rate achieved on schedule), and, when health_timeout
    # is set, no health check failed (slower than the timeout, or an error).
    # The p99 judged is the trial's own: corrected (from the planned send)
    # in open loop, closed-loop otherwise.
    #
    # A trial the load generator alone could not hold (its record's
    # "behind" is "client": its sends went out late while the server
    # answered what it was sent) is no evidence about the server either
    # way: its verdict does not pass and is `client` (not the server's
    # failure); the searches re-measure such a level or stop there
    # (Capacity, Tune::Lab). "both" is the server's failure too.
    #
    # An open-loop rate above the setup's ceiling fails whatever its p99:
    # by Little's law the requests in the app at once are req/s x the
    # probe's wall time a request, and a setup that serves on threads holds
    # at most its slots (workers x threads, plus Puma's io:N threads), so it
    # answers at most slots / wall time. A short trial can offer more and
    # still answer every request, the last ones after its window (puma x2:5
    # on /pause/0.05: 474 requests over 2 s counted as 237 req/s, where 10
    # threads x 51 ms allow 195), its p99 not yet over the objective.
    # CEILING_SLACK: the probe's wall time leaves out the server's own work
    # per request, so the ceiling is already high; 5% covers the window's
    # count. Servers on fibers have no slots: no ceiling.
    class Slo
      Verdict = Struct.new(:pass, :reason, :marginal, :client, keyword_init: true)

      # A p99 within this fraction of the objective is re-measured before
      # the level is judged (see Capacity).
      MARGIN = 0.2
      CEILING_SLACK = 0.05

      attr_reader :p99_ms, :error_rate, :health

      def initialize(p99_ms: 500.0, error_rate: 0.001, health: false)
        @p99_ms = p99_ms
        @error_rate = error_rate
        @health = health
      end

      def judge(record)
        p99 = record.dig("latency_ms", "p99")
        if client_bound?(record)
          return Verdict.new(pass: false, client: true, marginal: false,
                             reason: "not the server's: #{record['invalid_reason']}")
        end

        over = over_ceiling(record)
        return Verdict.new(pass: false, reason: over, marginal: false) if over && record["requests"].to_i.positive? && record["valid"] != false

        reason = failure(record, p99)
        Verdict.new(pass: reason.nil?, reason: reason || "p99 #{fmt(p99)} within #{fmt(@p99_ms)}",
                    marginal: !p99.nil? && (p99 - @p99_ms).abs <= @p99_ms * MARGIN)
      end

      # [req/s, slots, wall ms] a setup on threads can answer at most, from
      # an open-loop record (nil: fibers, no probe, a closed loop).
      def self.ceiling(record)
        wall = record.dig("split", "wall_ms") if record["split"].is_a?(Hash)
        return nil unless record["loop"] == "open" && record["fibers"] != true && wall.is_a?(Numeric) && wall.positive?

        io = record["setup"].to_s[/(?:\A|\s)io:(\d+)(?:\s|\z)/, 1].to_i
        slots = record["workers"].to_i * (record["threads"].to_i + io)
        slots.positive? ? [slots * 1000.0 / wall, slots, wall] : nil
      end

      def to_h
        { "p99_ms" => @p99_ms, "error_rate" => @error_rate, "health_checks" => @health }
      end

      def describe
        "p99 <= #{fmt(@p99_ms)}, errors <= #{format('%g', @error_rate * 100)}%#{@health ? ', no failed health check' : ''}"
      end

      # The load generator alone fell behind (Runner::TrialRecord.behind).
      def client_bound?(record)
        record["valid"] == false && record["behind"] == "client" && record["requests"].to_i.positive?
      end

      private

      def over_ceiling(record)
        ceiling, slots, wall = self.class.ceiling(record)
        offered = record["target_rate"] || record["rate"]
        return nil unless ceiling && offered.is_a?(Numeric) && offered > ceiling * (1 + CEILING_SLACK)

        io = record["setup"].to_s[/(?:\A|\s)io:(\d+)(?:\s|\z)/, 1]
        made = "#{record['workers']} worker#{record['workers'].to_i == 1 ? '' : 's'} x #{record['threads']} " \
               "thread#{record['threads'].to_i == 1 ? '' : 's'}#{io ? " + #{io} io" : ''}"
        format("%<offered>s req/s offered is more than %<slots>d slots (%<made>s) serve at %<wall>.0f ms a request in the app " \
               "(%<ceiling>.0f req/s, Little's law): its queue grew through the trial, too short for p99 to show it; " \
               "it cannot sustain this rate", offered: format("%g", offered), slots: slots, made: made, wall: wall, ceiling: ceiling)
      end

      def failure(record, p99)
        return "no response measured" if p99.nil? || record["requests"].to_i.zero?
        return "invalid trial: #{record['invalid_reason']}" if record["valid"] == false
        return "p99 #{fmt(p99)} over #{fmt(@p99_ms)}" if p99 > @p99_ms

        rate = measured_error_rate(record)
        return "errors #{format('%.2f', rate * 100)}% over #{format('%g', @error_rate * 100)}%" if rate > @error_rate
        return nil unless @health && record.dig("health", "failures").to_i.positive?

        "#{record.dig('health', 'failures')} health check(s) failed (slowest #{fmt(record.dig('health', 'max_ms'))})"
      end

      # Each failed request counted once (Stats::ErrorRate, stored
      # in the record); a record stored before that field existed: failures
      # over requests plus the failures that got no response.
      def measured_error_rate(record)
        return record["error_rate"] if record["error_rate"]

        ErrorRate.of(record["error_total"].to_i, record["requests"].to_i, record["errors"] || {})
      end

      def fmt(ms)
        return "-" if ms.nil?

        ms >= 1000 ? format("%.2f s", ms / 1000.0) : format("%.0f ms", ms)
      end
    end
  end
end
