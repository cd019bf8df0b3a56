# frozen_string_literal: true

module Rackbench
  module Load
    # Whether an open-loop trial held its schedule. An open-loop figure is
    # only the latency "at R requests a second" if R requests a second were
    # in fact offered and answered; otherwise it describes some other load.
    #
    # A trial is invalid when either:
    # 1. achieved rate < 99% of the target (MIN_RATE_SHARE): requests were
    #    still unanswered (in flight) or never sent when wrk stopped, so the
    #    server fell behind the offered rate (or the client could not offer
    #    it). The latency lower bounds are still reported.
    # 2. the server fell behind: over the window's second half it answered
    #    fewer than 97% of the offered rate (MIN_TAIL_SHARE), so its queue was
    #    growing; a short trial would otherwise pass an overload whose
    #    latency had not yet reached the objective (the slack covers one
    #    request per connection finishing just outside the half).
    # 3. the schedule slipped: among sends whose connection was free at the
    #    planned time (so any lateness is the client's own lag, not the
    #    server's), the mean lateness is above 1 ms (SLIP_MEAN_MAX_MS: wrk's
    #    timers have 1 ms resolution, so a healthy client stays well below;
    #    measured 0.05 ms at 50 req/s and 0.4 ms at 2,000 req/s on 2 cores)
    #    or more than 1% of them went out over 10 ms late (SLIP_LATE_SHARE,
    #    the "late" count kept by open_loop.lua). A client that lags sends
    #    less than planned at the moments that matter, which hides latency.
    #    A single late send (e.g. while wrk starts its threads) is tolerated.
    module OpenLoopValidity
      MIN_RATE_SHARE = 0.99
      MIN_TAIL_SHARE = 0.97
      SLIP_MEAN_MAX_MS = 1.0
      SLIP_LATE_MS = 10.0 # must match SLIP_OVER_S in wrk/open_loop.lua
      SLIP_LATE_SHARE = 0.01

      module_function

      # [valid, reason]: [true, nil] or [false, "one line"].
      # target_rate, achieved_rate: req/s; slip: the schedule_slip_ms hash.
      # With planned and completed (request counts), the rate is judged on
      # their ratio, free of the rounding of a short window to whole requests.
      def check(target_rate:, achieved_rate:, slip:, tail_rate: nil, planned: nil, completed: nil, connections: 1,
                duration_s: nil)
        achieved_share = planned.to_i.positive? && completed ? completed.to_f / planned : achieved_rate / target_rate
        reason = rate_reason(target_rate, achieved_rate, achieved_share) ||
                 tail_reason(target_rate, tail_rate, connections, duration_s) || slip_reason(slip)
        [reason.nil?, reason]
      end

      # The client's own lag, when its schedule slipped (the reason), else nil:
      # what tells "the load generator fell behind" from "the server fell
      # behind" in an invalid trial (Stats::Verdict).
      def client_lag(slip)
        slip.is_a?(Hash) && slip["sends"] ? slip_reason(slip) : nil
      end

      # The server's own shortfall, when its answers say so (the reason),
      # else nil: of the requests the client did send, more than
      # 1 - MIN_RATE_SHARE were still unanswered when wrk stopped (in_flight;
      # the drain after the last send gave it time), so the server did not
      # keep up with what it was offered. Sends the client never made
      # (unsent) are not counted against it: a lagging client makes those.
      def server_lag(completed:, in_flight:)
        sent = completed.to_i + in_flight.to_i
        return nil unless sent.positive? && in_flight.to_i > (1 - MIN_RATE_SHARE) * sent

        format("the server left %d of the %d requests sent unanswered (%.1f%%)", in_flight, sent, 100.0 * in_flight / sent)
      end

      # The slack allows one answer per connection (plus one) to fall just
      # outside the half: with few requests the check says little.
      def tail_reason(target, tail_rate, connections, duration_s)
        return nil if tail_rate.nil?

        half = duration_s ? duration_s / 2 : 1.0
        slack = (connections.to_i + 1) / half
        return nil if tail_rate >= MIN_TAIL_SHARE * target - slack

        format("the server fell behind: it answered %.1f req/s over the second half of the trial against %s " \
               "offered (its queue was growing); it cannot sustain this rate", tail_rate, format_rate(target))
      end

      def rate_reason(target, achieved, share = achieved / target)
        return nil if share >= MIN_RATE_SHARE

        format("achieved %.1f req/s, %.1f%% of the %s req/s target (below %d%%): the server did not answer " \
               "every planned request before wrk stopped; lower the rate or check the server's errors",
               achieved, 100.0 * achieved / target, format_rate(target), (MIN_RATE_SHARE * 100).round)
      end

      def slip_reason(slip)
        sends = slip.fetch("sends")
        return nil if sends.zero?

        # The single latest send is left out of both judgements (tolerated);
        # the message gives the plain mean (never below the trimmed one).
        mean = slip.fetch("mean")
        trimmed = sends > 1 && slip["max"] ? (mean * sends - slip["max"]) / (sends - 1) : mean
        late_share = [slip.fetch("late") - 1, 0].max.to_f / sends
        return nil if trimmed <= SLIP_MEAN_MAX_MS && late_share <= SLIP_LATE_SHARE

        format("the load generator fell behind its schedule: sends went out %.2f ms late on average " \
               "(limit %.1f ms) and %.1f%% over %d ms late (limit %d%%; the single latest send not counted); " \
               "the client machine is too busy: " \
               "lower the rate, use fewer connections, or run wrk on other cores",
               mean, SLIP_MEAN_MAX_MS, 100.0 * late_share, SLIP_LATE_MS, (SLIP_LATE_SHARE * 100).round)
      end

      def format_rate(rate)
        rate == rate.to_i ? rate.to_i.to_s : rate.to_s
      end

      private_class_method :rate_reason, :tail_reason, :slip_reason, :format_rate
    end
  end
end
