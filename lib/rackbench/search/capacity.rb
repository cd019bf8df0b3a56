# frozen_string_literal: true

require_relative "knee"
require_relative "client_bound"
require_relative "../stats/slo"
require_relative "../plan"
require_relative "../load"
require_relative "../clock"
require_relative "../runner/session"

module Rackbench
  module Search
    # "How much load can this setup take?" For one setup and endpoint, on one
    # booted server:
    #
    # 1. Closed loop: the highest concurrency whose trial meets the SLO,
    #    searched from the setup's own capacity (workers x threads).
    # 2. Open loop (wrk-open, latency from the planned send, so queueing
    #    shows): the highest rate that meets the SLO, searched from 80% of
    #    the throughput the closed-loop knee reached. Each level provisions
    #    connections for twice the closed-loop median latency at the knee,
    #    capped by the SLO (slower requests fail the SLO anyway).
    # 3. With sustain: the open-loop knee again for that many seconds.
    #
    # A level whose p99 lands within Slo::MARGIN of the objective is measured
    # again (up to 3 times, majority verdict; a 1-1 split gets its third) so
    # that a level near the knee is judged on a stable estimate, not one
    # noisy trial. Its stored reason is that of a measurement agreeing with
    # the verdict. A level the load generator could not hold is measured
    # once more with fewer connections; if it still could not, the search
    # stops there (ClientBound: "bound" in the loop's summary).
    class Capacity
      MAX_CONCURRENCY = 1024
      MAX_RATE = 50_000.0

      def initialize(context:, slo:, max_steps: 10, sustain: nil, loops: %w[closed open])
        @ctx = context
        @slo = slo
        @max_steps = max_steps
        @sustain = sustain
        @loops = loops
        @count = Hash.new(0)
      end

      # Returns the knee hash (also stored in capacity.jsonl), or nil when
      # the setup failed to boot or verify (recorded in setups.jsonl).
      def call(setup, endpoint)
        session = Runner::Session.new(setup: setup, repetition: 1, trials: [], context: @ctx)
        session.with_server([endpoint]) do |s|
          closed = closed_knee(s, setup, endpoint) if @loops.include?("closed")
          open = open_knee(s, setup, endpoint, closed) if @loops.include?("open")
          knee = { "type" => "knee", "setup" => setup.label, "endpoint" => endpoint, "slo" => @slo.to_h,
                   "closed" => closed, "open" => open }
          knee["sustain"] = sustain(s, setup, endpoint, open) if @sustain && open&.dig("pass")
          @ctx.store.append_capacity(knee)
          knee
        end
      end

      # A level is decided by one verdict that is not marginal, by two that
      # agree, or by the majority of three: a 1-1 split is measured a third
      # time rather than called either way.
      def self.decided?(verdicts)
        case verdicts.size
        when 0 then false
        when 1 then !verdicts.first.marginal
        when 2 then verdicts.map(&:pass).uniq.size == 1
        else true
        end
      end

      # [pass, reason]: the majority's verdict, with the reason of the last
      # measurement that agrees with it (and the count when there were more).
      def self.decision(verdicts)
        pass = verdicts.count(&:pass) * 2 > verdicts.size
        reason = verdicts.reverse.find { |v| v.pass == pass }&.reason || verdicts.last.reason
        return [pass, reason] if verdicts.size == 1

        [pass, "#{verdicts.count { |v| v.pass == pass }} of #{verdicts.size} measurements #{pass ? 'passed' : 'failed'}: #{reason}"]
      end

      private

      def closed_knee(session, setup, endpoint)
        engine = Load.default
        start = setup.capacity.clamp(1, MAX_CONCURRENCY)
        session.warm_up(endpoint, [trial(setup, endpoint, concurrency: start)], engine: engine)
        knee = Knee.new(start: start, min: 1, max: MAX_CONCURRENCY, integer: true, max_steps: @max_steps)
        result = knee.find { |c| level(session, "closed", trial(setup, endpoint, concurrency: c), @ctx.with(engine)) }
        summarize("closed", result)
      end

      def open_knee(session, setup, endpoint, closed)
        engine = Load.default("open")
        base = closed&.dig("pass_record") || probe(session, setup, endpoint)
        start = [[(base["rps"].to_f * 0.8).round(1), 1.0].max, MAX_RATE].min
        expected = expected_latency(base)
        knee = Knee.new(start: start, min: 1.0, max: MAX_RATE, integer: false, max_steps: @max_steps)
        result = knee.find do |rate|
          level(session, "open", trial(setup, endpoint, rate: rate),
                @ctx.with(engine, expected_latency: expected, duration: open_duration(rate)))
        end
        summarize("open", result)
      end

      # Without a closed-loop knee: one unrecorded closed-loop run at the
      # setup's capacity (workers x threads) estimates its throughput.
      def probe(session, setup, endpoint)
        c = setup.capacity.clamp(1, MAX_CONCURRENCY)
        result = session.warm_up(endpoint, [trial(setup, endpoint, concurrency: c)], engine: Load.default)
        return {} unless result

        { "rps" => result.rps, "latency_ms" => result.latency_ms }
      end

      # At least MIN_REQUESTS planned per open-loop level (a low rate over a
      # short window is too few requests to judge), within 4x --duration.
      MIN_REQUESTS = 100

      def open_duration(rate)
        d = @ctx.config[:duration]
        (MIN_REQUESTS / rate).clamp(d, 4 * d)
      end

      def sustain(session, setup, endpoint, open)
        ctx = @ctx.with(Load.default("open"), duration: @sustain,
                          expected_latency: expected_latency(open["pass_record"]))
        record = session.measure(trial(setup, endpoint, rate: open["pass"]), context: ctx)
        verdict = @slo.judge(record)
        { "seconds" => @sustain, "rate" => open["pass"], "holds" => verdict.pass, "reason" => verdict.reason,
          "p99_ms" => record.dig("latency_ms", "p99") }
      end

      # Measures a level (again when marginal; again with fewer connections
      # when the client could not hold it) and returns [pass, detail], pass
      # :client when the client could not hold it either time.
      def level(session, kind, trial, context)
        verdicts, records = judge_level(session, kind, trial, context)
        if verdicts.last.client && (fewer = ClientBound.fewer_connections(records.last))
          again, more = judge_level(session, kind, trial, context.with(context.engine, connections: fewer))
          verdicts += again
          records += more
        end
        pass, reason = verdicts.last.client ? [:client, verdicts.last.reason] : self.class.decision(verdicts.reject(&:client))
        detail = { "kind" => kind, "level" => trial.rate || trial.concurrency, "pass" => pass == true,
                   "client" => pass == :client || nil, "reason" => reason, "record" => records.last,
                   "trials" => records.map { |r| r["key"] } }.compact
        @ctx.store.append_capacity(detail.reject { |k, _| k == "record" }.merge("type" => "level", "setup" => trial.setup.label,
                                                                                "endpoint" => trial.endpoint))
        [pass, detail]
      end

      # The verdicts and records of one level, until decided (a verdict the
      # client made ends it).
      def judge_level(session, kind, trial, context)
        verdicts = []
        records = []
        until self.class.decided?(verdicts) || verdicts.last&.client
          t = trial.dup.tap { |x| x.repetition = (@count[[kind, trial.key]] += 1) }
          records << session.measure(t, context: context)
          verdicts << @slo.judge(records.last)
        end
        [verdicts, records]
      end

      def summarize(kind, result)
        by_level = result.steps.to_h { |s| [s.level, s.detail] }
        { "loop" => kind, "pass" => result.pass, "fail" => result.fail, "levels_measured" => result.steps.size,
          "pass_record" => slim(by_level[result.pass]&.dig("record")),
          "fail_record" => slim(by_level[result.fail]&.dig("record")),
          "fail_reason" => by_level[result.fail]&.dig("reason"),
          **(result.bound ? { "bound" => result.bound, "bound_reason" => ClientBound.note(result.bound) } : {}) }
      end

      def slim(record)
        record&.slice("key", "rps", "latency_ms", "error_total", "requests", "valid", "invalid_reason", "health")
      end

      def expected_latency(record)
        p50 = record&.dig("latency_ms", "p50")
        return @slo.p99_ms / 1000.0 unless p50

        (2 * p50 / 1000.0).clamp(0.05, @slo.p99_ms / 1000.0)
      end

      def trial(setup, endpoint, concurrency: nil, rate: nil)
        Plan::Trial.new(setup: setup, endpoint: endpoint, concurrency: concurrency, rate: rate, repetition: 1)
      end
    end
  end
end
