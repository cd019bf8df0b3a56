# frozen_string_literal: true

require_relative "racing"
require_relative "pareto"
require_relative "../../units"
require_relative "../../stats/welch"

module Rackbench
  module Search
    class Tune
      # The answer, from the best evidence tune reached:
      #   "confirmed"  round 3 ran: the finalists' order (Racing.rank)
      #   "knee"       round 3 did not run (time): the highest open-loop knee
      #   "probe"      no knee was measured (time): the best closed-loop probe
      # with one sentence saying why, the runner-up and whether the
      # difference is significant, and the Pareto table of every candidate
      # probed (throughput of the round-1 probe, measured alike for all, vs
      # PSS footprint). A setup over the memory budget is never recommended.
      class Recommendation
        EVIDENCE = {
          "confirmed" => "open-loop knee search, then repeated runs at the leader's knee",
          "knee" => "open-loop knee search only: the time budget ran out before the confirmation runs",
          "probe" => "closed-loop probes only: the time budget ran out before any knee search",
          "unmet" => "open-loop knee searches: no rate met the SLO"
        }.freeze

        def initialize(entries:, ranked:, slo:, endpoint:, rate:, window:, budget_mb:, unreachable: nil)
          @entries = entries.reject { |e| e.footprint_mb && e.footprint_mb > budget_mb }
          @all = entries
          @ranked = ranked
          @slo = slo
          @endpoint = endpoint
          @rate = rate
          @window = window
          @unreachable = unreachable
        end

        # nil when nothing was measured at all.
        def to_h
          return unmet if unmet?

          @winner, @runner, @evidence = pick
          return nil unless @winner

          @comparison = comparison
          { "setup" => @winner.label, "server" => @winner.setup.server, "workers" => @winner.setup.workers,
            "threads" => @winner.setup.threads, "endpoint" => @endpoint, "slo" => @slo.to_h,
            "evidence" => @evidence, "evidence_note" => EVIDENCE[@evidence], **figures(@winner),
            "reason" => "#{@winner.label} — #{headline}#{runner_clause ? "; #{runner_clause}" : ''}",
            "runner_up" => @runner && { "setup" => @runner.label, **figures(@runner) },
            "comparison" => @comparison, "pareto" => pareto }
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
                else
                  "no rate tried on #{@all.count(&:knee)} setup(s) met it"
                end
          { "setup" => nil, "endpoint" => @endpoint, "slo" => @slo.to_h, "evidence" => "unmet",
            "evidence_note" => EVIDENCE["unmet"], "unreachable" => @unreachable,
            "reason" => "no setup met #{slo} on #{@endpoint}: #{why}; raise --slo-p99#{suggestion} or tune another endpoint",
            "best_throughput" => best && { "setup" => best.label, "probe_rps" => best.probe_rps&.round(1) },
            "runner_up" => nil, "comparison" => nil, "pareto" => pareto }
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
            if @ranked&.any? then [@ranked[0], "confirmed"]
            elsif (k = @entries.select(&:knee_rps).max_by(&:knee_rps)) then [k, "knee"]
            else [@entries.select { |e| e.probes.any? }.max_by(&:probe_rps), "probe"]
            end
          [winner, @ranked&.[](1) || next_best(winner), evidence]
        end

        # Without a second confirmed finalist: the best other setup, by knee, then by probe.
        def next_best(winner)
          others = @entries.reject { |e| e.equal?(winner) || e.probes.empty? }
          others.select(&:knee_rps).max_by(&:knee_rps) || others.max_by(&:probe_rps)
        end

        def figures(entry)
          conf = entry.confirms.any? ? Racing.confirmation(entry.confirms, @slo).merge("rate" => @rate, "window_s" => @window) : nil
          { "knee_rps" => entry.knee_rps, "knee_fail" => entry.knee_fail, "probe_rps" => entry.probe_rps&.round(1),
            "footprint_mb" => entry.footprint_mb&.round(1), "confirmation" => conf }
        end

        # Welch's t-test when both ran round 3; otherwise the test that
        # dropped the runner-up, if one did (nil: not tested).
        def comparison
          if @evidence == "confirmed" && @runner&.confirms&.any?
            cmp = Racing.compare(@winner.confirms, @runner.confirms)
            return cmp.merge("method" => Stats::Welch::METHOD, "a" => @winner.label, "b" => @runner.label,
                             "significant" => cmp.values.any? { |m| m["significant"] })
          end
          return nil unless @runner&.drop_test

          { "method" => @runner.drop_test, "a" => @winner.label, "b" => @runner.label, "significant" => true }
        end

        def headline
          slo = "p99 #{@slo.p99_ms.round} ms"
          mem = @winner.footprint_mb ? ", #{Units.mib(@winner.footprint_mb)} PSS" : ""
          case @evidence
          when "confirmed"
            c = Racing.confirmation(@winner.confirms, @slo)
            runs = "#{c['passes']}/#{c['n']} runs of #{@window} s at #{Racing.rps(@rate)} req/s held it, p99 #{c.dig('p99_ms', 'median')&.round} ms"
            if c["holds"] && @winner.knee_rps && @winner.knee_rps > @rate
              "#{Racing.rps(@rate)} req/s within #{slo} (#{runs}; its short-window knee, #{Racing.rps(@winner.knee_rps)} req/s, " \
                "did not hold over #{@window} s)#{mem}"
            elsif c["holds"]
              "#{Racing.rps(@rate)} req/s within #{slo} (#{runs})#{mem}"
            else
              "the best found, but no finalist held #{slo} at #{Racing.rps(@rate)} req/s over #{@window} s " \
                "(#{c['failures'].first}): its sustainable rate is lower than its short-window knee#{mem}"
            end
          when "knee" then "#{Racing.rps(@winner.knee_rps)} req/s within #{slo} (knee search; not confirmed, out of time)#{mem}"
          else "#{Racing.rps(@winner.probe_rps)} req/s saturated (closed-loop probe only; out of time)#{mem}"
          end
        end

        def runner_clause
          return nil unless @runner
          return "runner-up #{@runner.label} (#{runner_figure}; not compared: out of time)" unless @comparison
          return "runner-up #{@runner.label} is worse (#{runner_figure}): #{@runner.dropped}" unless @comparison.key?("rps")

          cw = Racing.confirmation(@winner.confirms, @slo)
          cr = Racing.confirmation(@runner.confirms, @slo)
          if cw["holds"] && !cr["holds"]
            return "#{@runner.label} does not hold the SLO at #{Racing.rps(@rate)} req/s (#{cr['failures'].first})"
          end

          lower_knee = @winner.knee_rps && @runner.knee_rps && !Racing.overlap?(@winner, @runner)
          lower = lower_knee ? "its knee is lower (#{Racing.rps(@runner.knee_rps)} req/s); " : ""
          "#{@runner.label}: #{lower}#{metric_clauses}"
        end

        def runner_figure
          @runner.knee_rps ? "knee #{Racing.rps(@runner.knee_rps)} req/s" : "probe #{Racing.rps(@runner.probe_rps)} req/s"
        end

        NAMES = { "rps" => "req/s", "p99_ms" => "p99", "footprint_mb" => "PSS" }.freeze

        def metric_clauses
          same, differ = NAMES.keys.partition { |m| !@comparison.dig(m, "significant") }
          return "the same within noise on req/s, p99 and PSS (#{Stats::Welch::METHOD}): either will do" if differ.empty?

          diffs = differ.map do |m|
            d = @comparison.dig(m, "diff_pct")
            "#{NAMES[m]} #{d.positive? ? '+' : ''}#{d.round}% (significant, p = #{format('%.3f', @comparison.dig(m, 'p'))})"
          end
          head = same.empty? ? "" : "the same #{same.map { |m| NAMES[m] }.join(' and ')} within noise, but "
          "#{head}#{diffs.join(', ')} at #{Racing.rps(@rate)} req/s"
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
