# frozen_string_literal: true

require_relative "racing"
require_relative "pareto"
require_relative "confirm_round"
require_relative "ranking"
require_relative "pair_words"
require_relative "../client_bound"
require_relative "../../units"
require_relative "../../stats/decision"

module Rackbench
  module Search
    class Tune
      # The answer, from the best evidence tune reached:
      #   "confirmed"  round 3 ran and the winner held the SLO in most of its rounds:
      #                the finalists' order (Ranking, from paired rounds)
      #   "unconfirmed" round 3 ran, but the winner did not hold the SLO in most
      #                of its rounds (or the load generator fell behind): the
      #                best found, said not confirmed
      #   "knee"       round 3 did not run (time): the highest open-loop knee
      #   "probe"      no knee was measured (time): the best closed-loop probe
      # with one sentence saying why: against a confirmed runner-up, each
      # metric's decision with its interval and the rule that chose
      # (PairWords); against one that was not confirmed, why not. The
      # decisions between the finalists are stored as report JSON's are
      # (`decisions`: a, b, metric, ratio, ci_low, ci_high, margin, rounds,
      # method, outcome), with the pair that chose the winner (`decision`),
      # and the Pareto table of every candidate probed (throughput of the
      # round-1 probe, measured alike for all, vs PSS footprint). A setup over
      # the memory budget is never recommended.
      class Recommendation
        EVIDENCE = {
          "confirmed" => "open-loop knee search, then paired rounds of the finalists at one rate",
          "unconfirmed" => "open-loop knee search, then paired rounds of the finalists at one rate, " \
                           "in which the best found did not hold the SLO in most rounds",
          "knee" => "open-loop knee search only: the time budget ran out before the confirmation runs",
          "probe" => "closed-loop probes only: the time budget ran out before any knee search",
          "unmet" => "open-loop knee searches: no rate met the SLO"
        }.freeze

        # confirmed: round 3's ConfirmRound::Result, or nil.
        def initialize(entries:, confirmed:, slo:, endpoint:, budget_mb:, unreachable: nil)
          @entries = entries.reject { |e| e.footprint_mb && e.footprint_mb > budget_mb }
          @all = entries
          @confirmed = confirmed
          @ranked = confirmed&.ranked&.select { |e| @entries.include?(e) }
          @rate = confirmed&.rate
          @window = confirmed&.window
          @slo = slo
          @endpoint = endpoint
          @unreachable = unreachable
        end

        # nil when nothing was measured at all.
        def to_h
          return unmet if unmet?

          @winner, @runner, @evidence = pick
          return nil unless @winner

          @pair = @runner && @confirmed&.ranking&.pair(@winner, @runner)
          { "setup" => @winner.label, "server" => @winner.setup.server, "workers" => @winner.setup.workers,
            "threads" => @winner.setup.threads, "endpoint" => @endpoint, "slo" => @slo.to_h,
            "evidence" => @evidence, "evidence_note" => EVIDENCE[@evidence], **figures(@winner),
            "reason" => "#{@winner.label} — #{headline}#{runner_clause ? "; #{runner_clause}" : ''}#{bound_clause}",
            "client_bound" => client_bound,
            "runner_up" => @runner && runner_up, "confirm" => confirm, "decision" => decision,
            "decisions" => @confirmed ? @confirmed.ranking.entries.map(&:to_h) : [], "pareto" => pareto }
        end

        private

        # Knee searches ran and none found a rate within the SLO.
        def unmet?
          @ranked.to_a.empty? && @entries.none?(&:knee_rps) && @all.any?(&:knee)
        end

        # No recommendation: why, what to do, and the evidence.
        def unmet
          best = @entries.select { |e| e.probes.any? }.max_by(&:probe_rps)
          slo = "p99 <= #{@slo.p99_ms.round} ms"
          why = if @unreachable
                  "#{@unreachable['setup']} failed it even at #{Racing.rps(@unreachable['level'])} req/s, " \
                    "#{Racing.pct(@unreachable['share'])} of its saturated throughput (#{@unreachable['reason']}): " \
                    "the endpoint's own latency is over the objective"
                elsif (bound = client_bound)
                  "no rate tried on #{@all.count(&:knee)} setup(s) could be judged: #{ClientBound.note(bound)}"
                else
                  "no rate tried on #{@all.count(&:knee)} setup(s) met it"
                end
          { "setup" => nil, "endpoint" => @endpoint, "slo" => @slo.to_h, "evidence" => "unmet",
            "evidence_note" => EVIDENCE["unmet"], "unreachable" => @unreachable, "client_bound" => client_bound,
            "reason" => "no setup met #{slo} on #{@endpoint}: #{why}#{advice}",
            "best_throughput" => best && { "setup" => best.label, "probe_rps" => best.probe_rps&.round(1) },
            "runner_up" => nil, "decision" => nil, "decisions" => [], "pareto" => pareto }
        end

        # The lowest rate at which the load generator ended a knee search
        # (ClientBound) or fell behind in round 3's rounds, or nil: a knee or
        # a rate found below it is a lower bound.
        def client_bound
          [*@all.filter_map(&:knee_bound), @confirmed&.client_bound].compact.min
        end

        def bound_clause
          bound = client_bound or return ""
          by = @all.select { |e| e.knee_bound == bound }.map(&:label)
          return "; the knee search of #{by.join(', ')} stopped where #{ClientBound.note(bound)}" if by.any?

          "; round 3's rounds at #{Racing.rps(bound)} req/s: #{ClientBound.note(bound)}"
        end

        # A higher objective or another endpoint, unless only the client bounded every search.
        def advice
          @unreachable || !client_bound ? "; raise --slo-p99#{suggestion} or tune another endpoint" : ""
        end

        # An objective half again above the p99 seen at a light load.
        def suggestion
          p99 = @unreachable&.dig("p99_ms")
          return "" unless p99

          ms = p99 * 1.5
          ms >= 1000 ? " (e.g. --slo-p99 #{(ms / 1000).ceil}s)" : " (e.g. --slo-p99 #{(ms / 100).ceil * 100}ms)"
        end

        def pick
          winner, evidence =
            if @ranked&.any? then [@ranked[0], held?(@ranked[0]) ? "confirmed" : "unconfirmed"]
            elsif (k = @entries.select(&:knee_rps).max_by(&:knee_rps)) then [k, "knee"]
            else [@entries.select { |e| e.probes.any? }.max_by(&:probe_rps), "probe"]
            end
          [winner, @ranked&.[](1) || next_best(winner), evidence]
        end

        # Round 3's verdict on a finalist: it held the SLO in most of its rounds.
        def held?(entry) = Racing.confirmation(entry.confirms, @slo)["holds"]

        # Without a second confirmed finalist: the best other setup, by knee, then by probe.
        def next_best(winner)
          others = @entries.reject { |e| e.equal?(winner) || e.probes.empty? }
          others.select(&:knee_rps).max_by(&:knee_rps) || others.max_by(&:probe_rps)
        end

        def figures(entry)
          conf = confirmed?(entry) ? Racing.confirmation(entry.confirms, @slo).merge("rate" => @rate, "window_s" => @window) : nil
          { "knee_rps" => entry.knee_rps, "knee_fail" => entry.knee_fail, "probe_rps" => entry.probe_rps&.round(1),
            "footprint_mb" => entry.footprint_mb&.round(1), "processes" => Ranking.processes(entry.setup), "confirmation" => conf }
        end

        def confirmed?(entry)
          %w[confirmed unconfirmed].include?(@evidence) && @ranked.include?(entry) && entry.confirms.any?
        end

        # Why a runner-up was not confirmed, when it was not.
        def runner_up
          row = { "setup" => @runner.label, **figures(@runner) }
          return row if @pair

          row.merge("not_confirmed" => @runner.dropped || "the time budget ran out before round 3", "dropped_by" => @runner.drop_test)
        end

        # Round 3's rate, rounds and method (nil when it did not run).
        def confirm
          return nil unless @confirmed

          { "rate" => @rate, "window_s" => @window, "rounds" => @confirmed.rounds, "knee" => @confirmed.knee,
            "first_rate" => @confirmed.first_rate, "capped" => @confirmed.capped, "retried" => @confirmed.retried,
            "method" => Stats::Decision::PAIRED,
            "margin" => @confirmed.ranking.margin, "rule" => Ranking::RULE,
            "families" => Stats::Decisions::FAMILIES, "looks" => @confirmed.ranking.looks.to_h }
        end

        # The pair that chose between the winner and the runner-up.
        def decision
          return nil unless @pair

          { "a" => @pair.a.label, "b" => @pair.b.label, "winner" => @winner.label, "basis" => @pair.basis.to_s,
            "settled" => @pair.settled?, "rounds" => @pair.rounds,
            "rounds_needed" => @pair.settled? ? nil : @pair.rounds_needed, "text" => PairWords.sentence(@pair, @confirmed.ranking) }
        end

        def headline
          slo = "p99 #{@slo.p99_ms.round} ms"
          mem = @winner.footprint_mb ? ", #{Units.mib(@winner.footprint_mb)} PSS" : ""
          case @evidence
          when "confirmed", "unconfirmed"
            c = Racing.confirmation(@winner.confirms, @slo)
            runs = "#{c['passes']}/#{c['n']} paired rounds of #{@window} s at #{Racing.rps(@rate)} req/s held it, " \
                   "p99 #{c.dig('p99_ms', 'median')&.round} ms"
            knee = Racing.rps(@confirmed.knee)
            if c["holds"] && @confirmed.retried
              share = (ConfirmRound::SUSTAINED * 100).round
              first = @confirmed.capped ? "#{Racing.rps(@confirmed.first_rate)} req/s, #{share}% of the leader's saturated throughput," \
                                        : "the leader's short-window knee, #{knee} req/s,"
              "#{Racing.rps(@rate)} req/s within #{slo} (#{runs}; #{first} did not hold over #{@window} s)#{mem}"
            elsif c["holds"] && @confirmed.capped
              "#{Racing.rps(@rate)} req/s within #{slo} (#{runs}; #{(ConfirmRound::SUSTAINED * 100).round}% of the leader's " \
                "saturated throughput, below its knee of #{knee} req/s, so that a queue stays short)#{mem}"
            elsif c["holds"]
              "#{Racing.rps(@rate)} req/s within #{slo} (#{runs})#{mem}"
            elsif c["client"].to_i.positive?
              "the best found, but not confirmed: the load generator fell behind in #{c['client']} of #{c['n']} rounds " \
                "at #{Racing.rps(@rate)} req/s (counted as misses: they say nothing of the server), and no finalist " \
                "held #{slo} in most rounds#{mem}"
            else
              "the best found, but no finalist held #{slo} at #{Racing.rps(@rate)} req/s over #{@window} s " \
                "(#{c['failures'].first}): its sustainable rate is lower than its short-window knee#{mem}"
            end
          when "knee" then "#{Racing.rps(@winner.knee_rps)} req/s within #{slo} (knee search; not confirmed, out of time)#{mem}"
          else "#{Racing.rps(@winner.probe_rps)} req/s saturated (closed-loop probe only; out of time)#{mem}"
          end
        end

        # Against a confirmed runner-up: each metric's decision and the rule
        # (PairWords); otherwise why it was not confirmed.
        def runner_clause
          return nil unless @runner
          return PairWords.sentence(@pair, @confirmed.ranking, runner_up: @runner) if @pair

          why = @runner.dropped ? "not confirmed: #{@runner.dropped}" : "not confirmed: out of time"
          "runner-up #{@runner.label} (#{runner_figure}; #{why})"
        end

        def runner_figure
          @runner.knee_rps ? "knee #{Racing.rps(@runner.knee_rps)} req/s" : "probe #{Racing.rps(@runner.probe_rps)} req/s"
        end

        def pareto
          rows = @all.select { |e| e.probes.any? }.map do |e|
            { "setup" => e.label, "rps" => e.probe_rps&.round(1), "knee_rps" => e.knee_rps, "footprint_mb" => e.footprint_mb&.round(1),
              "status" => status(e) }
          end
          Pareto.mark(rows).sort_by { |r| -(r["rps"] || 0) }
        end

        def status(entry)
          return "recommended" if entry.equal?(@winner)
          return "runner-up" if entry.equal?(@runner)
          return "finalist" if entry.alive?

          entry.dropped_in ? "dropped in round #{entry.dropped_in}" : "dropped"
        end
      end
    end
  end
end
