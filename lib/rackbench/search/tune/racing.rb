# frozen_string_literal: true

require_relative "../../stats/summary"
require_relative "../../stats/slo"
require_relative "../../stats/validity"
require_relative "../../report/number_format"

module Rackbench
  module Search
    class Tune
      # tune's decisions, apart from any measuring so that they can run on
      # fake measurements. The method is successive halving (Jamieson &
      # Talwalkar 2016: give every candidate a cheap evaluation, keep the
      # better half, evaluate the survivors more thoroughly) with racing's
      # rule for what "better" means (Birattari et al. 2002, F-Race: drop a
      # candidate only once a statistical test says it is worse; keep ties):
      #
      # round 1  every candidate, one short closed-loop probe of saturated
      #          throughput. Keep the top half, plus any candidate within the
      #          noise band of the cut-off (a two-sided 95% z-test on single
      #          probes: Tune::Noise, from the footprint probes repeated on
      #          this machine, scaled by each probe's count of responses).
      # round 2  survivors, best first: an open-loop knee search (the highest
      #          rate meeting the SLO), no higher than KNEE_CEILING x the
      #          saturated throughput. So a survivor whose probe (plus noise)
      #          times that ceiling is below the best knee found so far cannot
      #          win and is dropped without a search (a bound, as in branch and
      #          bound). Finalists: the best knee, the runner-up, the best
      #          survivor the leader matched in less memory (dominance: a tie
      #          that round 3 decides with intervals), and a third whose knee
      #          bracket overlaps the leader's, at most 3.
      # round 3  finalists in paired rounds at one offered rate (ConfirmRound),
      #          decided by Ranking (Stats::Decision on req/s, p99 and PSS).
      # The tests of rounds 1 and 2 screen on single measurements with a noise
      # band; only round 3's decisions carry intervals.
      module Racing
        Decision = Struct.new(:entry, :keep, :reason, :test, keyword_init: true)

        # The tests behind a drop, as the output names them.
        HALVING_TEST = "round-1 probe below the cut-off by more than the noise band (two-sided 95% z-test)"
        BOUND_TEST = "round-2 bound: its saturated throughput cannot reach the best knee"
        KNEE_TEST = "round-2 knee brackets do not overlap"
        DOMINANCE_TEST = "round-2 dominance: another survivor's probe was as fast, within the noise band, with a smaller footprint"

        # Knee.rb's default precision: a bracket [pass, fail) narrower than this is final.
        KNEE_PRECISION = 0.1
        # The knee search goes no higher than this multiple of the setup's
        # saturated (closed-loop) throughput: an open-loop rate above what the
        # server does flat out cannot be sustained, and over a window of a few
        # seconds a growing queue can still pass for a sustained rate. The 5%
        # allows for the probe's own noise.
        KNEE_CEILING = 1.05

        module_function

        # The band between a and b (b omitted: a against a knee): band is a
        # Tune::Noise, or a fixed fraction.
        def width(band, a, b = nil)
          band.respond_to?(:between) ? band.between(a, b) : band
        end

        # Round 1: entries with a probe -> decisions, best first.
        def halve(entries, band:)
          ranked = entries.sort_by { |e| -e.probe_rps }
          keep = (ranked.size / 2.0).ceil
          last = ranked[keep - 1]
          cutoff = last&.probe_rps
          ranked.each_with_index.map do |e, i|
            rank = "rank #{i + 1}/#{ranked.size}, #{rps(e.probe_rps)} req/s"
            w = width(band, e, last)
            if i < keep
              Decision.new(entry: e, keep: true, reason: "#{rank}: top half")
            elsif e.probe_rps >= cutoff * (1 - w)
              Decision.new(entry: e, keep: true, reason: "#{rank}: tied with the cut-off (#{rps(cutoff)} req/s) within the #{pct(w)} noise band")
            else
              Decision.new(entry: e, keep: false, test: HALVING_TEST,
                           reason: "#{rank}: below the cut-off (#{rps(cutoff)} req/s) by more than the #{pct(w)} noise band")
            end
          end
        end

        # Round 2 bound: can this survivor's knee still beat the best knee?
        def hopeless?(entry, best_knee, band:)
          return false unless best_knee && entry.probe_rps

          entry.probe_rps * (1 + width(band, entry)) * KNEE_CEILING < best_knee
        end

        def bound_reason(entry, best_knee, band)
          "not searched: its saturated throughput (#{rps(entry.probe_rps)} req/s, +#{pct(width(band, entry))} noise, " \
            "x #{KNEE_CEILING} search ceiling) cannot reach the best knee so far (#{rps(best_knee)} req/s)"
        end

        # Round 2 dominance (Pareto, on the round-1 probes, with ties): a
        # survivor is dominated by a survivor with a smaller measured footprint
        # whose probe was at least as fast, or slower by no more than the
        # noise band (the same test round 1 keeps ties by: it is not shown to
        # be faster). Its knee is not searched: tied or slower, the
        # recommendation would take the smaller footprint. Survivors are taken
        # by footprint, smallest first, and only one that is not itself
        # dominated can dominate (ties are not transitive: A ~ B and B ~ C
        # does not make A ~ C). Returns {entry => dominating entry}. Limit:
        # judged on single probes of saturated throughput, not on knees or p99.
        def dominance(pool, band:)
          front = []
          pool.select { |e| e.probe_rps && e.footprint_mb }.sort_by { |e| [e.footprint_mb, -e.probe_rps] }
              .each_with_object({}) do |e, out|
            by = front.find { |d| d.footprint_mb < e.footprint_mb && d.probe_rps >= e.probe_rps * (1 - width(band, d, e)) }
            by ? out[e] = by : front << e
          end
        end

        # footprints: [by's, entry's] PSS as dominance compared them (default: now).
        def dominance_reason(entry, by, band, footprints = nil)
          by_mb, entry_mb = footprints || [by.footprint_mb, entry.footprint_mb]
          "not searched: #{by.label} was as fast in round 1 within the #{pct(width(band, by, entry))} noise band " \
            "(#{rps(by.probe_rps)} vs #{rps(entry.probe_rps)} req/s) in less memory " \
            "(#{by_mb.round(1)} < #{entry_mb.round(1)} MiB PSS)"
        end

        # Two knees are tied when their brackets [pass, upper) overlap.
        def overlap?(a, b)
          return false unless a.knee_rps && b.knee_rps

          a.knee_upper > b.knee_rps && b.knee_upper > a.knee_rps
        end

        # Round 2 -> [finalists, decisions]. searched: entries whose knee was
        # searched; spare: live entries left unsearched for lack of time
        # (best probe first), one of which stands in as runner-up when only
        # one knee was found. (Entries the bound ruled out never stand in:
        # they are known to be worse.) dominated: {entry => the entry that
        # matched it in less memory}; the best of those the leader matched
        # joins the finalists, so that the tie is decided on paired rounds.
        # dominated_mb: {entry => [its PSS, the matcher's PSS]} as they were
        # when round 2 compared them (a knee search adds records that move
        # the matcher's median footprint afterwards).
        def finalists(searched, spare: [], dominated: {}, dominated_mb: {}, max: 3)
          ranked = searched.select(&:knee_rps).sort_by { |e| [-e.knee_rps, e.footprint_mb || Float::INFINITY] }
          leader = ranked.first
          picks = []
          challenger = nil
          if leader
            picks << leader
            runner = ranked[1] || spare.max_by(&:probe_rps)
            picks << runner if runner
            challenger = dominated.select { |_, by| by.equal?(leader) }.keys.max_by(&:probe_rps)
            picks << challenger if challenger
            picks.concat(ranked[2..].to_a.select { |e| overlap?(e, leader) })
            picks = picks.first(max)
          end
          decisions = searched.map do |e|
            keep = picks.include?(e)
            test = !keep && e.knee_rps && leader && !overlap?(e, leader) ? KNEE_TEST : nil
            Decision.new(entry: e, keep: keep, reason: knee_reason(e, leader, picks), test: test)
          end
          if picks[1] && !searched.include?(picks[1]) && !picks[1].equal?(challenger)
            decisions << Decision.new(entry: picks[1], keep: true,
                                      reason: "runner-up by its probe (#{rps(picks[1].probe_rps)} req/s; its knee was not searched: time)")
          end
          if picks.include?(challenger)
            decisions << Decision.new(entry: challenger, keep: true,
                                      reason: challenger_reason(challenger, leader, dominated_mb[challenger]))
          end
          [picks, decisions]
        end

        def challenger_reason(entry, leader, footprints = nil)
          entry_mb, leader_mb = footprints || [entry.footprint_mb, leader.footprint_mb]
          "finalist without a knee search: as fast as #{leader.label} in round 1 (#{rps(entry.probe_rps)} vs " \
            "#{rps(leader.probe_rps)} req/s) in more memory then (#{entry_mb&.round(1)} > #{leader_mb&.round(1)} " \
            "MiB PSS); round 3 decides the tie"
        end

        # A knee search that failed even at a light load (at most LIGHT_LOAD
        # of the setup's saturated throughput): the endpoint's own latency is
        # over the objective, and more workers or threads will not bring it
        # under. Returns the lowest level measured, or nil.
        LIGHT_LOAD = 0.25

        def out_of_reach(entry)
          return nil if entry.knee_rps || entry.knee.nil? || entry.probe_rps.nil?

          lowest = Array(entry.knee["levels"]).reject { |l| l["client"] }.min_by { |l| l["level"] }
          lowest if lowest && !lowest["pass"] && lowest["level"] <= LIGHT_LOAD * entry.probe_rps
        end

        # A verdict's reason, short enough for one line.
        def short(reason)
          reason.to_s.sub(/ \(below 99%\).*/, "").sub(/: the server did not answer.*/, "").sub(/; .*/, "")
        end

        def knee_reason(entry, leader, picks)
          return "no knee: #{entry.knee['bound_reason']}" if !entry.knee_rps && entry.knee_bound
          return "no rate met the SLO#{entry.knee&.dig('fail_reason') ? " (#{entry.knee['fail_reason']})" : ''}" unless entry.knee_rps

          upper = if entry.knee_fail then " (fails at #{rps(entry.knee_fail)})"
                  elsif entry.knee_bound then " (the load generator could not hold #{rps(entry.knee_bound)})"
                  else ""
                  end
          head = "knee #{rps(entry.knee_rps)} req/s#{upper}"
          return "#{head}: the leader" if entry.equal?(leader)

          tie = overlap?(entry, leader) ? "tied with the leader (knee brackets overlap)" : "below the leader's bracket"
          picks.include?(entry) ? "#{head}: finalist, #{tie}" : "#{head}: #{tie}, not among the best #{picks.size}"
        end

        # Round 3: one finalist's repetitions judged against the SLO. A
        # repetition the load generator could not hold is a miss (it
        # confirms nothing), counted apart in "client".
        # A trial that is not valid (Stats::Validity: too short for its
        # latency, Little's law failing) holds nothing: its req/s and p99
        # are not the server's, so it fails with the reason (round 3 said
        # "confirmed" on two such trials: issue 46, item 9).
        def confirmation(records, slo)
          verdicts = records.map { |r| judge(r, slo) }
          passes = verdicts.count(&:pass)
          { "n" => records.size, "passes" => passes, "holds" => records.any? && passes * 2 > records.size,
            "client" => verdicts.count(&:client),
            "failures" => verdicts.reject(&:pass).map { |v| short(v.reason) }.uniq,
            "rps" => summary(records.map { |r| r["goodput_rps"] || r["rps"] }),
            "p99_ms" => summary(records.map { |r| r.dig("latency_ms", "p99") }),
            "footprint_mb" => summary(records.map { |r| r.dig("memory", "pss_total_mb") }) }
        end

        def judge(record, slo)
          problem = Stats::Validity.trial(record).problems.first
          return slo.judge(record) unless problem && record["valid"] != false

          Stats::Slo::Verdict.new(pass: false, reason: "not valid: #{problem.text}", marginal: false, client: false)
        end

        def summary(values)
          s = Stats::Summary.of(values)
          return nil if s.n.zero?

          { "n" => s.n, "median" => s.median.round(2), "mean" => s.mean.round(2), "stdev" => s.stdev.round(2) }
        end

        # req/s as every report writes it (Report::NumberFormat).
        def rps(value)
          Report::NumberFormat.rps(value)
        end

        def pct(fraction)
          "#{(fraction * 100).round}%"
        end
      end
    end
  end
end
