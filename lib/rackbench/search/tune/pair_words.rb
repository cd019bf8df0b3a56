# frozen_string_literal: true

require_relative "../../stats/decision_text"
require_relative "racing"
require_relative "ranking"

module Rackbench
  module Search
    class Tune
      # One pair of finalists in words (Ranking::Pair): each metric's
      # decision as every report says it (Stats::DecisionText: direction and
      # 95% interval, or "undecided" with about how many more rounds), then
      # which one wins by which rule, and whether more rounds could change it.
      #
      #   puma x2:5 against puma x1:10 (4 paired rounds at 180 req/s): req/s equivalent within +-5%
      #   (95% CI -0.2% to +0.3%); p99 undecided (95% CI -9% to +12%, about 6 more rounds); PSS larger by
      #   48% (95% CI 44-52%): puma x1:10 wins: req/s equivalent, p99 undecided, so the smaller footprint;
      #   not settled: about 2 more rounds would settle it
      module PairWords
        module_function

        def sentence(pair, ranking, runner_up: nil)
          names = [pair.b, pair.a].map { |e| e.equal?(runner_up) ? "runner-up #{e.label}" : e.label }
          rounds = pair.rounds
          head = "#{names[0]} against #{names[1]} (#{rounds} paired #{rounds == 1 ? 'round' : 'rounds'} at " \
                 "#{Racing.rps(ranking.rate)} req/s)"
          metrics = Ranking::METRICS.filter_map { |m| pair.entries[m] && Stats::DecisionText.phrase(pair.entries[m]) }
          "#{head}: #{metrics.join('; ')}: #{verdict(pair, ranking)}#{still_open(pair, ranking.looks.max)}"
        end

        # Only the ranking's first "wins"; in a pair of the others the better
        # one is ahead (a runner-up never wins under another recommendation).
        def verdict(pair, ranking)
          w = pair.better
          o = pair.other(w)
          wins = w.equal?(ranking.winner) ? "#{w.label} wins" : "#{w.label} is ahead of #{o.label} in this pair"
          case pair.basis
          when :slo
            "#{wins}: it held the SLO in #{held(w, ranking)}, #{o.label} in #{held(o, ranking)}"
          when :rps then "#{wins}: decided faster"
          when :p99 then "#{wins}: decided lower p99#{pair.outcome('rps') == :equivalent ? ' at equivalent throughput' : ', req/s not decided apart'}"
          when :pss then "#{wins}: #{performance(pair)}, so the smaller footprint"
          when :processes
            pss = pair.outcome("memory.pss_total_mb") == :equivalent ? "equivalent" : "not decided apart"
            "#{wins}: #{performance(pair)} and PSS #{pss}, so the fewer processes " \
              "(#{Ranking.processes(w.setup)} against #{Ranking.processes(o.setup)})"
          else "#{w.label} is kept (the higher knee): nothing decided between them"
          end
        end

        # "equivalent on req/s and p99", or each: "req/s equivalent, p99 undecided".
        def performance(pair)
          outcomes = { "req/s" => pair.outcome("rps"), "p99" => pair.outcome("latency_ms.p99") }
          return "equivalent on req/s and p99" if outcomes.values.all?(:equivalent)

          outcomes.map { |name, o| "#{name} #{o == :equivalent ? 'equivalent' : 'undecided'}" }.join(", ")
        end

        def held(entry, ranking)
          c = Racing.confirmation(entry.confirms, ranking.slo)
          client = c["client"].to_i.positive? ? " (#{c['client']} missed as the load generator fell behind)" : ""
          "#{c['passes']} of #{c['n']} rounds#{client}"
        end

        # Why the pair is open, as the rounds stopped: more rounds would
        # settle it (the time budget ran out first), or it would take more
        # rounds than round 3 runs (max; it stops there, with time left).
        def still_open(pair, max = nil)
          return "" if pair.settled?

          need = pair.rounds_needed
          more = if need && max && need > max
                   "it would take about #{need} paired rounds, more than the #{max} round 3 runs at most, so it stopped there"
                 elsif need
                   "about #{[need - pair.rounds, 1].max} more rounds would settle it"
                 else
                   "more rounds could change it"
                 end
          "; not settled: #{more}"
        end
      end
    end
  end
end
