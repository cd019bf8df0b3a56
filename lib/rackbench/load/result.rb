# frozen_string_literal: true

module Rackbench
  module Load
    # What one load-generator run measured. Every engine (wrk, wrk-open, ab,
    # siege, the fake) returns one of these; the runner stores it as part of
    # a trial.
    #
    # latency_ms keys: "min", "mean", "stdev", "max", "p50", "p75", "p90",
    #   "p99", "p99.9" (milliseconds, Float; open loop adds "p99.99"). For
    #   closed-loop engines these are closed-loop figures: they hide
    #   coordinated omission (see loop). For open loop they are measured from
    #   each request's planned send time (see WrkOpenLoop).
    # errors keys: ERROR_KINDS (Integer).
    # loop: "closed" or "open".
    # protocol: what the engine spoke when it says ("h2c": HTTP/2 in
    #   cleartext with prior knowledge, H2load); nil: HTTP/1.x, as each
    #   engine's own comment states (wrk and siege 1.1, ab 1.0).
    # tls: the TLS the engine itself agreed, when it says ({"version",
    #   "cipher"}: h2load over https://); nil: not said (wrk says nothing).
    #
    # Open loop only (nil for closed-loop engines):
    #   service_ms        the same keys, measured from the actual send time
    #                     (the uncorrected figure, as closed-loop tools report)
    #   target_rate       requests per second asked for
    #   achieved_rate     requests completed / duration_s
    #   connections       connections (= wrk threads) used
    #   planned           sends planned over duration_s (target_rate x duration_s)
    #   in_flight         requests still unanswered when the load generator
    #                     stopped (in latency_ms as lower bounds)
    #   unanswered_ms     how long each request still unanswered when the
    #                     load generator stopped had waited (ms); wrk counts
    #                     a timeout only when a late answer arrives, so
    #                     Runner::Errors counts the hung ones. Closed loop:
    #                     set by the runner (Sampling::Unanswered). nil: not
    #                     known.
    #   unsent            planned sends that never went out because their
    #                     connection was busy to the end (lower bounds too)
    #   schedule_slip_ms  {"mean", "max" (ms), "sends", "late" (sends over
    #                     the late threshold), "early", "queued" (counts)}:
    #                     lateness of sends whose connection was free at the
    #                     planned time, i.e. the client's own lag
    #   valid             false when the trial did not hold its schedule
    #   invalid_reason    one line saying why (nil when valid)
    #
    # Closed loop with a throughput window (wrk/window.lua, CountWindow):
    #   window            {"start_s", "end_s" (seconds since the run
    #                     started), "run_requests", "run_duration_s" (the
    #                     whole run's responses and length)}; requests and
    #                     duration_s are then the window's, so rps is too.
    #                     nil: requests and duration_s are the whole run's.
    #
    # Load from other hosts (--load-host, Load::Remote): the figures above are
    # merged (Remote::Merge) and hosts holds each host's part (host, share,
    # its level, requests, achieved rate, schedule slip, client CPU, valid).
    Result = Struct.new(:engine, :requests, :duration_s, :bytes, :errors, :latency_ms, :loop, :command,
                        :service_ms, :target_rate, :achieved_rate, :connections, :planned, :in_flight, :unsent,
                        :schedule_slip_ms, :valid, :invalid_reason, :window, :hosts, :unanswered_ms, :protocol,
                        :tls, keyword_init: true) do
      def rps
        duration_s.positive? ? requests / duration_s : 0.0
      end

      # "window" (counted within a window away from the ends) or "whole"
      # (every response over the whole run).
      def throughput_method
        window ? "window" : "whole"
      end

      # Every response the engine read, window or not (errors are counted
      # over the same whole run).
      def responses
        window ? window["run_requests"] : requests
      end

      def error_total
        errors.values_at(*Result::ERROR_KINDS).compact.sum
      end

      def open_loop?
        loop == "open"
      end

      # Closed-loop results carry no verdict (valid is nil): they count as valid.
      def valid?
        valid != false
      end

      def to_h
        super.transform_keys(&:to_s)
      end
    end

    class Result
      ERROR_KINDS = %w[connect read write timeout status].freeze
    end

    # The name ERROR_KINDS had when it lived in the Struct block; kept for
    # code written against it. New code: Result::ERROR_KINDS.
    ERROR_KINDS = Result::ERROR_KINDS
  end
end
