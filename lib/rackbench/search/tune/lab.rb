# frozen_string_literal: true

require_relative "../knee"
require_relative "../client_bound"
require_relative "racing"
require_relative "../../clock"
require_relative "../../plan"
require_relative "../../load"
require_relative "../../runner/session"
require_relative "../../server"
require_relative "../../stats/summary"

module Rackbench
  module Search
    class Tune
      # Where tune measures: each call boots one setup (Runner::Session),
      # warms it up, measures, and stops it. Every trial is stored in
      # trials.jsonl like any run's. Before each boot and each measurement
      # the deadline is asked whether it still fits; when it does not, the
      # call returns what it measured so far with stopped = true.
      #
      # The open-loop knee search is Capacity's method (Knee: doubling, then
      # bisection; a level whose p99 is within Slo::MARGIN re-measured, up to
      # 3 times, majority verdict), run here with tune's own calls to
      # Session#measure so the deadline can be checked before every level.
      #
      # Tests replace the Lab with a fake answering probe/knee/confirm and
      # the *_cost estimates.
      class Lab
        Outcome = Struct.new(:records, :knee, :failure, :stopped, keyword_init: true)
        OutOfTime = Class.new(StandardError)

        PROBE_SECONDS = 1       # wrk (closed loop) takes whole seconds
        PROBE_MAX_SECONDS = 5
        PROBE_RESPONSES = 30    # a probe lasts long enough to count about this many responses
        KNEE_RUN = 2            # seconds of wrk per open-loop level (more for a low rate: MIN_REQUESTS)
        MIN_REQUESTS = 100      # at least this many planned sends per open-loop level
        KNEE_START = 0.8        # first level: 80% of the warm-up's saturated throughput (highest: Racing::KNEE_CEILING x)
        MAX_CONCURRENCY = 1024
        STEP_OVERHEAD = 0.4     # seconds around each measurement (sampler, store, process start)
        DRAIN = Load::WrkOpenLoop::MIN_DRAIN_S
        MAX_DRAIN = 1.2 # wrk-open runs ceil(window + 0.25 s) whole seconds: a drain of at most just under 1.25 s
        MAX_RATE = 50_000.0

        def initialize(context:, endpoint:, slo:, deadline:)
          @ctx = context
          @endpoint = endpoint
          @slo = slo
          @deadline = deadline
          @drain = (slo.p99_ms / 1000.0).clamp(DRAIN, MAX_DRAIN)
          @overheads = []
          @probe_seconds = []
          @count = Hash.new(0)
        end

        # Boot + verify + warm-up + stop, as measured so far (3 s before the first).
        def boot_cost
          Stats::Summary.of(@overheads).median || 3.0
        end

        def probe_cost(repeat = 1) = boot_cost + repeat * ((Stats::Summary.of(@probe_seconds).median || PROBE_SECONDS) + STEP_OVERHEAD)
        def knee_cost(levels) = boot_cost + levels * (KNEE_RUN + STEP_OVERHEAD)
        def confirm_cost(repeat, duration) = boot_cost + repeat * (run_seconds(duration) + STEP_OVERHEAD)

        # Closed loop at c = 2 x workers x threads, after a warm-up; each
        # probe lasts (whole seconds, 1 to 5) long enough to count about
        # PROBE_RESPONSES responses, 10 mean latencies and 3 of the slowest
        # at the warm-up's pace. A probe that counts fewer than
        # PROBE_RESPONSES, or meets a response slower than a third of its
        # length, is measured once more, longer (longer_probe); the short one
        # stays in trials.jsonl but is not used.
        def probe(setup, repeat: 1)
          run(setup) do |session, records|
            trial = trial(setup, concurrency: probe_concurrency(setup))
            engine = Load.default
            warm = session.warm_up(@endpoint, [trial], engine: engine)
            seconds = probe_seconds(warm)
            first = measure(session, trial, engine, seconds, duration: seconds)
            if (longer = longer_probe(first, seconds))
              seconds = longer
              first = measure(session, trial, engine, seconds, duration: seconds)
            end
            @probe_seconds << seconds
            records << first
            (repeat - 1).times { records << measure(session, trial, engine, seconds, duration: seconds) }
          end
        end

        def probe_seconds(warm)
          rps = warm&.rps.to_f
          return PROBE_MAX_SECONDS unless rps.positive?

          latency = warm.latency_ms || {}
          [PROBE_RESPONSES / rps, 10 * latency["mean"].to_f / 1000, 3 * latency["max"].to_f / 1000]
            .max.ceil.clamp(PROBE_SECONDS, PROBE_MAX_SECONDS)
        end

        # A closed-loop run counts only the responses that arrive before it
        # ends, so a run barely longer than its slowest requests under-counts
        # them (those still in flight at the end are lost) and reads the
        # fast ones' pace (on a mix where a fifth of the requests sleep 1 s, a
        # 1 s probe sees almost none of them). Returns the whole seconds of a
        # second probe when this one counted fewer than PROBE_RESPONSES or met
        # a response slower than a third of its length; nil when it was long
        # enough (or already PROBE_MAX_SECONDS).
        def longer_probe(record, seconds)
          return nil if seconds >= PROBE_MAX_SECONDS

          rps = (record["goodput_rps"] || record["rps"]).to_f
          slowest = record.dig("latency_ms", "max").to_f / 1000
          want = [rps.positive? ? PROBE_RESPONSES / rps : PROBE_MAX_SECONDS, 3 * slowest].max.ceil
          want > seconds ? want.clamp(seconds + 1, PROBE_MAX_SECONDS) : nil
        end

        # The highest open-loop rate meeting the SLO, in at most max_levels
        # levels, from KNEE_START x the closed-loop warm-up's throughput
        # (guess: the round-1 probe's, if higher). Connections are provisioned
        # for expected_latency seconds (nil: twice the warm-up's median).
        def knee(setup, guess:, expected_latency:, max_levels:)
          levels = []
          outcome = run(setup) do |session, records|
            warm = session.warm_up(@endpoint, [trial(setup, concurrency: probe_concurrency(setup))], engine: Load.default)
            base = [warm&.rps.to_f, guess.to_f].max.clamp(1.0, MAX_RATE)
            expected_latency ||= expected_from(warm)
            knee = Knee.new(start: [base * KNEE_START, 1.0].max.round(1), min: 1.0, max: (base * Racing::KNEE_CEILING).round(1),
                            integer: false, max_steps: max_levels, precision: Racing::KNEE_PRECISION)
            knee.find do |rate|
              level = level(session, setup, rate, expected_latency, records)
              levels << level
              [level["client"] ? :client : level["pass"], level]
            end
          end
          outcome.knee = bracket(levels, complete: !outcome.stopped)
          outcome
        end

        # repeat runs of duration seconds at rate, after a warm-up.
        def confirm(setup, rate:, repeat:, duration:, expected_latency:)
          run(setup) do |session, records|
            session.warm_up(@endpoint, [trial(setup, concurrency: probe_concurrency(setup))], engine: Load.default)
            repeat.times do
              records << measure(session, trial(setup, rate: rate), Load.default("open"), run_seconds(duration),
                                 duration: duration, expected_latency: expected_latency)
            end
          end
        end

        # The sending window of an open-loop run of `run` whole seconds. The
        # rest of the run sends nothing and waits for answers to the last
        # sends, for as long as the SLO's p99 (between wrk-open's own 0.25 s
        # and MAX_DRAIN): an answer later than that fails the SLO anyway,
        # while a shorter wait would count a slow endpoint's last requests
        # (a 1 s /pause/1 sent in the last second) as never answered.
        def window(run)
          (run - @drain).round(3)
        end

        def probe_concurrency(setup)
          (2 * setup.capacity * Server.adapter_class(setup.server).in_flight_per_process).clamp(1, MAX_CONCURRENCY)
        end

        # Whole seconds of wrk an open-loop run at rate needs to plan at least
        # MIN_REQUESTS sends (a p99 of fewer is little more than the maximum),
        # between KNEE_RUN and 4 x KNEE_RUN.
        def min_run(rate)
          (MIN_REQUESTS / rate + @drain).ceil.clamp(KNEE_RUN, 4 * KNEE_RUN)
        end

        # Progress lines count measurements: the tune sets how many it expects.
        def expect(count)
          @ctx.progress.total = @ctx.progress.done + count
        end

        private

        def run(setup)
          records = []
          return Outcome.new(records: records, stopped: true) unless @deadline.allows?(boot_cost + PROBE_SECONDS)

          started = Clock.now
          @measuring = 0.0
          session = Runner::Session.new(setup: setup, repetition: 1, trials: [], context: @ctx)
          done = session.with_server([@endpoint]) do |s|
            yield s, records
            true
          end
          Outcome.new(records: records, stopped: false, failure: done ? nil : failure_of(setup))
        rescue OutOfTime
          Outcome.new(records: records, stopped: true)
        ensure
          @overheads << Clock.now - started - @measuring if started && records.any?
        end

        def measure(session, trial, engine, seconds, **config)
          raise OutOfTime unless @deadline.allows?(seconds + STEP_OVERHEAD)

          t = trial.dup.tap { |x| x.repetition = (@count[trial.key] += 1) }
          started = Clock.now
          session.measure(t, context: @ctx.with(engine, **config))
        ensure
          @measuring += Clock.now - started if started
        end

        # One open-loop level; measured again when marginal (as Capacity
        # does), and with fewer connections when the load generator could not
        # hold it (ClientBound); "client" when it could not either time.
        def level(session, setup, rate, expected_latency, records)
          verdicts, trials = judge_level(session, setup, rate, records, expected_latency: expected_latency)
          if verdicts.last.client && (fewer = ClientBound.fewer_connections(trials.last))
            again, more = judge_level(session, setup, rate, records, connections: fewer)
            verdicts += again
            trials += more
          end
          client = verdicts.last.client
          judged = verdicts.reject(&:client)
          { "level" => rate, "pass" => !client && judged.count(&:pass) * 2 > judged.size, "client" => client || nil,
            "reason" => verdicts.last.reason, "p99_ms" => trials.last.dig("latency_ms", "p99"), "record" => trials.last,
            "trials" => trials.map { |r| r["key"] } }.compact
        end

        def judge_level(session, setup, rate, records, **provision)
          duration = level_seconds(rate)
          verdicts = []
          trials = []
          3.times do
            record = measure(session, trial(setup, rate: rate), Load.default("open"), run_seconds(duration),
                             duration: duration, **provision)
            records << record
            trials << record
            verdicts << @slo.judge(record)
            break unless verdicts.last.marginal && verdicts.size < 3 && verdicts.map(&:pass).uniq.size == verdicts.size
          end
          [verdicts, trials]
        end

        def expected_from(result)
          p50 = result&.latency_ms&.dig("p50")
          slo = @slo.p99_ms / 1000.0
          p50 ? (2 * p50 / 1000.0).clamp(0.05, [slo, 0.05].max) : slo
        end

        def level_seconds(rate)
          window(min_run(rate))
        end

        # The bracket from the levels measured (a search cut short by the
        # deadline keeps what it found); "bound": the level the load
        # generator could not hold, where the search stopped (ClientBound).
        def bracket(levels, complete:)
          passed = levels.select { |l| l["pass"] }.max_by { |l| l["level"] }
          failed = levels.reject { |l| l["pass"] || l["client"] }.select { |l| passed.nil? || l["level"] > passed["level"] }
                         .min_by { |l| l["level"] }
          bound = levels.find { |l| l["client"] }&.dig("level")
          { "pass" => passed&.dig("level"), "fail" => failed&.dig("level"), "fail_reason" => failed&.dig("reason"),
            "pass_record" => slim(passed&.dig("record")), "levels" => levels.map { |l| l.reject { |k, _| k == "record" } },
            "complete" => complete, **(bound ? { "bound" => bound, "bound_reason" => ClientBound.note(bound) } : {}) }
        end

        def slim(record)
          record&.slice("key", "rps", "goodput_rps", "latency_ms", "error_total", "requests", "valid", "invalid_reason")
        end

        def failure_of(setup)
          row = @ctx.store.setups.reverse.find { |s| s["setup"] == setup.label && %w[failed skipped].include?(s["status"]) }
          row ? row["reason"] : "#{setup.label} failed"
        end

        def run_seconds(duration)
          (duration + DRAIN).ceil
        end

        def trial(setup, concurrency: nil, rate: nil)
          Plan::Trial.new(setup: setup, endpoint: @endpoint, concurrency: concurrency, rate: rate, repetition: 1)
        end
      end
    end
  end
end
