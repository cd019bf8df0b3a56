# frozen_string_literal: true

require_relative "lab"
require_relative "racing"
require_relative "reserve"
require_relative "round_log"
require_relative "knee_search"

module Rackbench
  module Search
    class Tune
      # Round 2 of Tune: the survivors' knees searched (KneeSearch), best
      # probe first. One is not searched when it cannot reach the best knee
      # found (Racing.hopeless?), when another matched it in less memory
      # (Racing.dominance: the leader that matched it is confirmed against it
      # in round 3), when the time budget is out, or when the SLO proved out
      # of reach on the endpoint (the best setup by throughput failed it at a
      # light load: Racing.out_of_reach). Takes the shared State; returns the
      # finalists (best knee first) and the out-of-reach record, if any.
      class KneeRound
        Result = Struct.new(:finalists, :unreachable, keyword_init: true)

        def initialize(state, entries:, band:)
          @s = state
          @entries = entries
          @band = band
          @log = RoundLog.new(state, 2, entries: entries, band: band)
          @dominated = {}
          @dominated_mb = {}
          @unreachable = nil
        end

        def call
          pool = @entries.select(&:alive?).sort_by { |e| -e.probe_rps }
          dominated = Racing.dominance(pool, band: @band)
          # The footprints dominance compared: a knee search adds records that move a median afterwards.
          compared = pool.to_h { |e| [e, e.footprint_mb] }.compare_by_identity
          searched = []
          spare = {} # entry => why its knee was not searched
          pool.each_with_index do |e, i|
            best = searched.filter_map(&:knee_rps).max
            first = searched.empty?
            if Racing.hopeless?(e, best, band: @band)
              spare[e] = Racing::Decision.new(entry: e, keep: false, reason: Racing.bound_reason(e, best, @band), test: Racing::BOUND_TEST)
            elsif (by = dominated[e])
              @dominated[e] = by
              @dominated_mb[e] = compared.values_at(e, by)
              spare[e] = Racing::Decision.new(entry: e, keep: false, reason: Racing.dominance_reason(e, by, @band, compared.values_at(by, e)),
                                              test: Racing::DOMINANCE_TEST)
            elsif !@s.deadline.allows?(@s.lab.knee_cost(first ? 2 : KneeSearch::LEVELS) + (first ? 0 : Reserve.after(2, @s.lab)))
              @s.stop!("time budget")
              spare[e] = Racing::Decision.new(entry: e, keep: false, reason: "not searched: the time budget ran out")
            elsif @unreachable
              spare[e] = Racing::Decision.new(entry: e, keep: false, reason: "not searched: the SLO is out of reach on this endpoint")
            else
              KneeSearch.new(@s).call(e)
              searched << e
              unreachable!(e)
            end
            @log.progress("#{RoundLog.setups(pool.size - i - 1)} left", @log.leader_by(:knee_rps) || @log.leader_by(:probe_rps))
          end
          Result.new(finalists: pick_finalists(searched, spare), unreachable: @unreachable)
        end

        private

        # The best setup by throughput failed the SLO at a light load: no
        # other will pass, so the round ends (Racing.out_of_reach).
        def unreachable!(entry)
          lowest = Racing.out_of_reach(entry) or return
          share = lowest["level"] / entry.probe_rps
          @unreachable = { "setup" => entry.label, "level" => lowest["level"], "share" => share.round(3),
                           "p99_ms" => lowest["p99_ms"], "reason" => Racing.short(lowest["reason"]) }
          @s.journal.log(@unreachable.merge("type" => "stop", "round" => 2, "why" => "the SLO is out of reach at a light load"))
          @s.say.call("round 2/#{Tune::ROUNDS}: #{entry.label} failed the SLO even at #{Racing.rps(lowest['level'])} req/s " \
                      "(#{Racing.pct(share)} of its saturated throughput): #{@unreachable['reason']}; no other setup will pass")
        end

        def pick_finalists(searched, spare)
          failed, ok = searched.partition(&:dropped)
          finalists, decisions = Racing.finalists(ok, spare: spare.values.reject(&:test).map(&:entry), dominated: @dominated,
                                                    dominated_mb: @dominated_mb)
          decisions.concat(spare.values.reject { |d| finalists.include?(d.entry) })
          decisions.each { |d| d.entry.drop!(2, d.reason, test: d.test) unless d.keep }
          decisions.concat(failed.map { |e| Racing::Decision.new(entry: e, keep: false, reason: e.dropped) })
          @log.decisions(decisions, method_text)
          @log.progress("#{finalists.size} finalist#{finalists.size == 1 ? '' : 's'}",
                        @log.leader_by(:knee_rps) || @log.leader_by(:probe_rps), done: true)
          finalists
        end

        def method_text
          "open-loop knee search: at most #{KneeSearch::LEVELS} levels of #{@s.lab.window(Lab::KNEE_RUN)} s or more, " \
            "from 80% to at most #{(Racing::KNEE_CEILING * 100).round}% of the saturated throughput; " \
            "a survivor that cannot reach the best knee, or that another matched in less memory, is not searched " \
            "(the best the leader matched is confirmed against it in round 3)"
        end
      end
    end
  end
end
