# frozen_string_literal: true

require_relative "lab"
require_relative "racing"
require_relative "ranking"
require_relative "pair_words"

module Rackbench
  module Search
    class Tune
      # Round 3 of Tune: the finalists in interleaved paired rounds at one
      # offered rate (randomized multiple interleaved trials, Abedi & Brecht,
      # ICPE 2017). Each round measures every finalist once, in a fresh
      # random order drawn from the tune's seed, each on a fresh boot (a boot
      # draws its own memory layout, and its speed varies with it), so the
      # machine's drift falls on all finalists alike and each round pairs
      # them. Ranking decides from the rounds (Stats::Decision, paired) and
      # says by which rule; PairWords puts it in words.
      #
      # The rate: the leader's knee, but no more than SUSTAINED of its
      # saturated (closed-loop) throughput. An open-loop rate near the
      # saturated throughput queues without bound, and a knee search's short
      # windows can pass it (Racing::KNEE_CEILING); confirming there measures
      # where the queue happened to be when the run stopped, not the setups.
      # At 90% a queue stays short, so finalists that serve alike measure
      # alike (a cut of under 1% is not made). When no finalist holds the SLO in most of ROUNDS rounds: the
      # rounds again at RETRY_FACTOR of the rate, once.
      #
      # How many rounds: ROUNDS at least (Student's t on 2 degrees of freedom),
      # then one at a time while the winner's decision against another
      # finalist is not settled (Ranking::Pair#settled?), the rounds it would
      # likely take are at most MAX_ROUNDS, and the time budget allows.
      # Finalists already settled against the winner sit the added rounds out.
      # Limits: a pair is judged on the rounds both ran; a round cut short by
      # the time budget pairs only the finalists it reached.
      #
      # A round the load generator could not hold (Stats::Slo's `client`
      # verdict: its sends went out late) is a miss: it confirms nothing, so
      # no recommendation rests on it. It is said as the load generator's
      # (not the server's) in the progress line, the journal ("client") and
      # the Result's client_bound (the rate of the rounds decided on, when
      # any of them was the client's), which the recommendation names.
      class ConfirmRound
        ROUNDS = 3
        MAX_ROUNDS = 10
        RUN = 3 # seconds of wrk per run at most (more at a low rate: Lab#min_run)
        PLANNED_RUN = 2 # what the earlier rounds keep time back for
        MIN_SECONDS = 0.75
        SUSTAINED = 0.9
        CAP_TOLERANCE = 0.01 # a cut of less than this is not made
        RETRY_FACTOR = 0.85
        # A look after every round from ROUNDS to MAX_ROUNDS, the rate spent over them (Stats::Looks).
        LOOKS = Stats::Looks.sequential(first: ROUNDS, max: MAX_ROUNDS)

        # rate: the rate decided at (first_rate, less RETRY_FACTOR, when retried);
        # client_bound: that rate when the load generator fell behind in any of its rounds, else nil.
        Result = Struct.new(:ranked, :ranking, :rate, :first_rate, :window, :rounds, :knee, :capped, :retried, :client_bound,
                            keyword_init: true)

        # Seconds for count finalists' ROUNDS rounds of a window each.
        def self.cost(lab, count, window)
          count * ROUNDS * lab.confirm_cost(1, window)
        end

        def initialize(state)
          @s = state
          @rng = Random.new(state.seed.to_i)
        end

        # finalists: best knee first. Returns a Result, or nil when the time
        # budget left no room for the rounds (logged as skipped).
        def call(finalists)
          leader = finalists.first
          knee = leader&.knee_rps or return nil

          cap = sustained(leader)
          rate = cap && cap < knee * (1 - CAP_TOLERANCE) ? cap : knee
          finalists = finalists.first(2) if window_for(finalists.size, rate).nil?
          window = window_for(finalists.size, rate)
          return skip unless window

          rounds = rounds(finalists, rate, window)
          first_rate = rate
          retried = false
          if finalists.none? { |e| holds?(e) } && @s.deadline.allows?(self.class.cost(@s.lab, finalists.size, window))
            retry_rate = (rate * RETRY_FACTOR).round(1)
            @s.say.call("round 3/#{Tune::ROUNDS}: no finalist held the SLO at #{Racing.rps(rate)} req/s over #{window} s; " \
                        "the rounds again at #{Racing.rps(retry_rate)} req/s")
            rate = retry_rate
            retried = true
            rounds = rounds(finalists, rate, window)
          end
          finish(finalists.select { |e| e.confirms.any? }, rate: rate, window: window, rounds: rounds, knee: knee,
                                                           capped: first_rate < knee, retried: retried, first_rate: first_rate)
        end

        private

        def sustained(leader)
          leader.probe_rps && (leader.probe_rps * SUSTAINED).round(1)
        end

        def skip
          @s.stop!("time budget")
          @s.journal.log("type" => "round", "round" => 3, "skipped" => "the time budget ran out before the confirmation rounds")
          nil
        end

        # Rounds at rate until the winner's decisions are settled (or
        # MAX_ROUNDS, or the time budget); returns how many ran.
        def rounds(finalists, rate, window)
          finalists.each { |e| e.confirms = [] }
          @s.lab.expect(finalists.size * ROUNDS)
          n = 0
          in_play = finalists
          while n < MAX_ROUNDS
            if n >= ROUNDS
              in_play = still_open(finalists, rate) or break
              @s.lab.expect(in_play.size)
            end
            unless @s.deadline.allows?(in_play.size * @s.lab.confirm_cost(1, window))
              @s.stop!("time budget")
              break
            end
            n += 1
            break unless round(n, in_play.shuffle(random: @rng), rate, window)
          end
          n
        end

        # The winner and the finalists its decision against is not settled,
        # when more rounds are likely to settle it; nil otherwise.
        def still_open(finalists, rate)
          ranking = ranking(finalists.select { |e| e.confirms.any? }, rate)
          open = ranking.open
          need = open.filter_map(&:rounds_needed).max
          return nil if open.empty? || need.nil? || need > MAX_ROUNDS

          [ranking.winner, *open.map { |p| p.other(ranking.winner) }]
        end

        # One round: every finalist in order, a fresh boot each. False when
        # the time budget stopped it (the finalists it reached are logged).
        def round(n, order, rate, window)
          results = []
          stopped = false
          order.each do |e|
            o = @s.lab.confirm(e.setup, rate: rate, repeat: 1, duration: window, expected_latency: e.expected_latency(@s.slo))
            e.add(o.records)
            o.records.first(1).each { |r| e.confirms << r.merge("round" => n) }
            stopped = @s.stop!("time budget") if o.stopped
            break if stopped && o.records.empty?

            results << result(e, o)
          end
          @s.journal.log("type" => "confirm", "round" => 3, "n" => n, "rate" => rate, "window_s" => window,
                         "order" => order.map(&:label), "results" => results, "stopped" => stopped || nil)
          @s.say.call("round 3/#{Tune::ROUNDS}: round #{n} at #{Racing.rps(rate)} req/s (#{order.map(&:label).join(', ')}): " +
                      results.map { |r| "#{r['setup']} #{outcome(r)}" }.join(", "))
          !stopped
        end

        def result(entry, outcome)
          r = outcome.records.first
          return { "setup" => entry.label, "pass" => false, "failure" => outcome.failure || "no record" } unless r

          verdict = @s.slo.judge(r)
          { "setup" => entry.label, "rps" => (r["goodput_rps"] || r["rps"])&.round(1), "p99_ms" => r.dig("latency_ms", "p99"),
            "pss_total_mb" => r.dig("memory", "pss_total_mb"), "pass" => verdict.pass, "client" => verdict.client || nil }.compact
        end

        def outcome(result)
          return "held the SLO" if result["pass"]

          result["client"] ? "missed (the load generator fell behind, not the server: counted as a miss)" : "missed the SLO"
        end

        # The rate when any finalist's round at it was the load generator's (Stats::Slo#client_bound?).
        def client_bound(finalists, rate)
          rate if finalists.any? { |e| e.confirms.any? { |r| @s.slo.client_bound?(r) } }
        end

        def holds?(entry) = Racing.confirmation(entry.confirms, @s.slo)["holds"]

        def ranking(finalists, rate)
          Ranking.new(finalists, slo: @s.slo, margin: @s.margin, endpoint: @s.endpoint, rate: rate, looks: LOOKS)
        end

        def finish(finalists, rate:, window:, rounds:, knee:, capped:, retried:, first_rate:)
          return nil if finalists.empty?

          ranking = ranking(finalists, rate)
          ranked = ranking.order
          @s.journal.log("type" => "round", "round" => 3, "method" => method_text(rounds, rate, window, capped && !retried, finalists.size),
                         "elapsed_s" => @s.deadline.elapsed.round(1), "rate" => rate, "rounds" => rounds, "seed" => @s.seed,
                         "margin" => @s.margin, "rule" => Ranking::RULE,
                         "decisions" => ranked.each_with_index.map { |e, i| e.to_row.merge("keep" => i.zero?, "reason" => reason(e, i)) },
                         "pairs" => ranking.pairs.map { |p| PairWords.sentence(p, ranking) },
                         "paired_decisions" => ranking.entries.map(&:to_h))
          @s.say.call("round 3/#{Tune::ROUNDS} done: winner #{ranked.first.label}")
          Result.new(ranked: ranked, ranking: ranking, rate: rate, first_rate: first_rate, window: window, rounds: rounds,
                     knee: knee, capped: capped, retried: retried, client_bound: client_bound(finalists, rate))
        end

        def method_text(rounds, rate, window, capped, count)
          at = capped ? "#{(SUSTAINED * 100).round}% of the leader's saturated throughput, below its knee" : "the leader's knee"
          "#{rounds} #{count > 1 ? 'paired ' : ''}rounds of #{window} s at #{Racing.rps(rate)} req/s (#{at}): every finalist once per round, " \
            "a fresh boot each, in a fresh random order (seed #{@s.seed}); #{Stats::Decision::PAIRED}, " \
            "equivalence margin +-#{(@s.margin * 100).round(1)}%, #{Stats::Decisions::FAMILIES}; #{LOOKS.describe}"
        end

        def reason(entry, index)
          c = Racing.confirmation(entry.confirms, @s.slo)
          head = index.zero? ? "winner" : "##{index + 1}"
          verdict = c["holds"] ? "holds the SLO" : "does not hold the SLO (#{c['failures'].first})"
          "#{head}: #{verdict} in #{c['passes']}/#{c['n']} rounds; #{Racing.rps(c.dig('rps', 'median'))} req/s, " \
            "p99 #{c.dig('p99_ms', 'median')&.round} ms, PSS #{c.dig('footprint_mb', 'median')&.round(1)} MiB"
        end

        # The longest window (a whole-second wrk run less the drain) that lets
        # count finalists run ROUNDS rounds, a boot each, within the time left:
        # at most RUN seconds, or what a low rate needs to plan enough requests
        # (Lab#min_run).
        def window_for(count, rate)
          per = @s.deadline.left / (count * ROUNDS) - @s.lab.boot_cost - Lab::STEP_OVERHEAD
          run = per.floor.clamp(0, [RUN, @s.lab.min_run(rate)].max)
          window = @s.lab.window(run)
          window >= MIN_SECONDS ? window : nil
        end
      end
    end
  end
end
