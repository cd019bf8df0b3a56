# frozen_string_literal: true

require_relative "../error"
require_relative "../units"
require_relative "tune/state"
require_relative "tune/candidates"
require_relative "tune/entry"
require_relative "tune/racing"
require_relative "tune/noise"
require_relative "tune/deadline"
require_relative "tune/lab"
require_relative "tune/pareto"
require_relative "tune/recommendation"
require_relative "tune/config_writer"
require_relative "tune/memory_round"
require_relative "tune/confirm_round"
require_relative "tune/edge_round"

module Rackbench
  module Search
    # "Which server, in which workers x threads configuration, serves this
    # app best on this machine, within this memory budget and SLO?"
    #
    # 0. memory   boot each server once as "SERVER x2" under a short load:
    #             PSS per worker and master bound the workers (Candidates).
    # 1-3. rounds successive halving with racing's keep rule (Racing, where
    #             the method is described): cheap closed-loop probes for all,
    #             open-loop knee searches for the better half, then the final
    #             two or three in interleaved paired rounds at one rate,
    #             decided with intervals (ConfirmRound, Ranking).
    #
    # The deadline (--time-budget) is checked before every measurement
    # (Lab), and each round keeps time back for the ones after it; whatever
    # happens, tune ends with a recommendation from the best evidence it has
    # and says which evidence that is.
    #
    # Measuring goes through a lab (Tune::Lab on real servers, a fake in
    # tests) and decisions go to a journal (tune.jsonl), so the decision
    # logic runs without a server. Rounds 0 and 3 and the look past the
    # space's edges are objects (MemoryRound, ConfirmRound, EdgeRound) that
    # take the shared State and return their result; rounds 1-2 are methods
    # here.
    class Tune
      ROUNDS = 3
      METHOD = "successive halving with statistical ties kept (racing): round 1 probes every setup, " \
               "round 2 knee-searches the better half (skipping those another matches in less memory), " \
               "round 3 decides between the finalists in interleaved paired rounds at one rate " \
               "(paired intervals at each family's 95% over the looks, equivalence margin)"
      FOOTPRINT_PROBES = 3
      KNEE_LEVELS = 5

      attr_reader :entries

      def initialize(lab:, journal:, deadline:, servers:, budget_mb:, slo:, endpoint:, cores:,
                     max_workers: nil, ladders: {}, say: nil, edge_steps: EdgeRound::MAX_STEPS, predict: true,
                     margin: Stats::Decision::DEFAULT_MARGIN, seed: 0)
        @edge_steps = edge_steps # steps past the space's edges (EdgeRound); 0: none
        @lab = lab
        @journal = journal
        @deadline = deadline
        @servers = servers
        @budget_mb = budget_mb
        @slo = slo
        @endpoint = endpoint
        @cores = cores
        @max_workers = max_workers
        @ladders = ladders # {server => thread counts}: replaces a server's own ladder (--puma-threads)
        @predict = predict # false (--no-predict): round 1 in its plain order; the prediction is still printed
        @say = say || ->(_line) {}
        @state = State.new(lab: lab, journal: journal, deadline: deadline, slo: slo, endpoint: endpoint, margin: margin,
                           seed: seed, say: @say)
      end

      # Runs the search; returns the recommendation (also in recommendation.json).
      def call
        @say.call("tune #{@endpoint}: SLO #{@slo.describe}; memory budget #{Units.mib(@budget_mb)}; " \
                  "time budget #{(@deadline.seconds / 60.0).round(1)} min")
        @say.call("method: #{METHOD}")
        space = MemoryRound.new(@state, servers: @servers, budget_mb: @budget_mb, cores: @cores, max_workers: @max_workers,
                                        ladders: @ladders, probes: FOOTPRINT_PROBES).call
        @entries = space.entries
        @limits = space.limits # EdgeRound: how far the workers could go, and why
        @band = space.band
        @prediction = space.prediction
        predict
        round1
        finalists = round2
        round3(finalists)
        edges = EdgeRound.new(@state, entries: @entries, confirmed: @confirmed, limits: @limits, band: band, cores: @cores,
                                      max_workers: @max_workers, ladder: method(:ladder), knee: method(:search_knee),
                                      steps: @edge_steps).call
        @edge = edges.edge
        @confirmed = edges.confirmed
        finish
      end

      # The thread counts tried for server: its ladder, or the one given for it.
      def ladder(server)
        @ladders[server] || Server.adapter_class(server).thread_ladder
      end

      # The probes' noise (Tune::Noise), as the footprint probes measured it
      # (the 5% floor before they ran).
      def band
        @band ||= Noise.new([])
      end

      private

      # -- 1: probes ---------------------------------------------------------

      # Round 1 probes the setups nearest the probe split's prediction first
      # (Prediction), then, as without one, the largest capacity first.
      def round1
        todo = @entries.select { |e| e.probes.empty? }
                       .sort_by { |e| [@prediction && @predict ? @prediction.distance(e.setup) : 0, -e.setup.capacity, -e.setup.workers] }
        @lab.expect(todo.size)
        todo.each_with_index do |entry, done|
          probe(entry)
          progress(1, "#{setups(todo.size - done - 1)} left to probe", leader_by(:probe_rps))
        end
        over_budget!
        decisions = Racing.halve(alive.select { |e| e.probes.any? }, band: band)
        decisions.each { |d| d.entry.drop!(1, d.reason, test: d.test) unless d.keep }
        decisions += @entries.select { |e| e.dropped_in == 1 && decisions.none? { |d| d.entry.equal?(e) } }
                             .map { |e| Racing::Decision.new(entry: e, keep: false, reason: e.dropped) }
        log_round(1, decisions, "closed-loop probe: #{Lab::PROBE_SECONDS}-#{Lab::PROBE_MAX_SECONDS} s at c = 2 x workers x threads; keep the top half, " \
                                "ties within the noise band kept (#{Racing.pct(band.reference)} at the footprint probes' count of responses, " \
                                "wider for probes that counted fewer)")
        progress(1, "kept #{alive.size} of #{@entries.size}", leader_by(:probe_rps), done: true)
      end

      # One round-1 probe, unless the time budget has run out (before or during it).
      def probe(entry)
        outcome = @deadline.allows?(@lab.probe_cost + reserve(after: 1)) ? @lab.probe(entry.setup) : nil
        if outcome
          entry.add(outcome.records, into: entry.probes)
          entry.drop!(1, outcome.failure) if outcome.failure
        end
        return unless outcome.nil? || outcome.stopped

        stop!("time budget")
        entry.drop!(1, "not probed: the time budget ran out")
      end

      def over_budget!
        alive.each do |e|
          mb = e.footprint_mb
          e.drop!(1, "measured footprint #{Units.mib(mb)} is over the #{Units.mib(@budget_mb)} budget") if mb && mb > @budget_mb
        end
      end

      # -- 2: knees ----------------------------------------------------------

      def round2
        pool = alive.sort_by { |e| -e.probe_rps }
        dominated = Racing.dominance(pool, band: band)
        # The footprints dominance compared: a knee search adds records that move a median afterwards.
        compared = pool.to_h { |e| [e, e.footprint_mb] }.compare_by_identity
        @dominated = {}
        @dominated_mb = {}
        searched = []
        spare = {} # entry => why its knee was not searched
        pool.each_with_index do |e, i|
          best = searched.filter_map(&:knee_rps).max
          first = searched.empty?
          if Racing.hopeless?(e, best, band: band)
            spare[e] = Racing::Decision.new(entry: e, keep: false, reason: Racing.bound_reason(e, best, band), test: Racing::BOUND_TEST)
          elsif (by = dominated[e])
            @dominated[e] = by
            @dominated_mb[e] = compared.values_at(e, by)
            spare[e] = Racing::Decision.new(entry: e, keep: false, reason: Racing.dominance_reason(e, by, band, compared.values_at(by, e)),
                                            test: Racing::DOMINANCE_TEST)
          elsif !@deadline.allows?(@lab.knee_cost(first ? 2 : KNEE_LEVELS) + (first ? 0 : reserve(after: 2)))
            stop!("time budget")
            spare[e] = Racing::Decision.new(entry: e, keep: false, reason: "not searched: the time budget ran out")
          elsif @unreachable
            spare[e] = Racing::Decision.new(entry: e, keep: false, reason: "not searched: the SLO is out of reach on this endpoint")
          else
            search_knee(e)
            searched << e
            unreachable!(e)
          end
          progress(2, "#{setups(pool.size - i - 1)} left", leader_by(:knee_rps) || leader_by(:probe_rps))
        end
        pick_finalists(searched, spare)
      end

      # The best setup by throughput failed the SLO at a light load: no
      # other will pass, so round 2 ends (Racing.out_of_reach).
      def unreachable!(entry)
        lowest = Racing.out_of_reach(entry) or return
        share = lowest["level"] / entry.probe_rps
        @unreachable = { "setup" => entry.label, "level" => lowest["level"], "share" => share.round(3),
                         "p99_ms" => lowest["p99_ms"], "reason" => Racing.short(lowest["reason"]) }
        @journal.log(@unreachable.merge("type" => "stop", "round" => 2, "why" => "the SLO is out of reach at a light load"))
        @say.call("round 2/#{ROUNDS}: #{entry.label} failed the SLO even at #{Racing.rps(lowest['level'])} req/s " \
                  "(#{Racing.pct(share)} of its saturated throughput): #{@unreachable['reason']}; no other setup will pass")
      end

      def search_knee(entry)
        @lab.expect(KNEE_LEVELS)
        outcome = @lab.knee(entry.setup, guess: entry.probe_rps, expected_latency: entry.expected_latency(@slo),
                                         max_levels: KNEE_LEVELS)
        entry.add(outcome.records)
        entry.knee = outcome.knee
        stop!("time budget") if outcome.stopped
        entry.drop!(2, outcome.failure) if outcome.failure
        outcome.knee&.fetch("levels", [])&.each do |level|
          @journal.log(level.merge("type" => "level", "round" => 2, "setup" => entry.label))
        end
      end

      def pick_finalists(searched, spare)
        failed, ok = searched.partition(&:dropped)
        finalists, decisions = Racing.finalists(ok, spare: spare.values.reject(&:test).map(&:entry), dominated: @dominated,
                                                  dominated_mb: @dominated_mb)
        decisions.concat(spare.values.reject { |d| finalists.include?(d.entry) })
        decisions.each { |d| d.entry.drop!(2, d.reason, test: d.test) unless d.keep }
        decisions.concat(failed.map { |e| Racing::Decision.new(entry: e, keep: false, reason: e.dropped) })
        log_round(2, decisions, "open-loop knee search: at most #{KNEE_LEVELS} levels of #{@lab.window(Lab::KNEE_RUN)} s or more, " \
                                "from 80% to at most #{(Racing::KNEE_CEILING * 100).round}% of the saturated throughput; " \
                                "a survivor that cannot reach the best knee, or that another matched in less memory, is not searched " \
                                "(the best the leader matched is confirmed against it in round 3)")
        progress(2, "#{finalists.size} finalist#{finalists.size == 1 ? '' : 's'}", leader_by(:knee_rps) || leader_by(:probe_rps), done: true)
        finalists
      end

      # -- 3: paired rounds ------------------------------------------------------

      # The finalists decided in paired rounds (ConfirmRound); a round that
      # could not run (time) leaves the last result standing.
      def round3(finalists)
        result = ConfirmRound.new(@state).call(finalists) or return
        @confirmed = result
      end

      # -- the end -------------------------------------------------------------

      # The prediction, said and logged before round 1.
      def predict
        return unless @prediction

        @prediction.guesses.each_value do |g|
          @journal.log(g.to_h.merge("type" => "prediction", "round" => 0))
          @say.call("prediction: #{g.label} (#{g.why}; workers: one per core, memory fits #{g.workers_cap})")
        end
      end

      # "predicted puma x2:3, found puma x2:5" (nil without a prediction for the winner's server).
      def predicted_against_found(rec)
        guess = @prediction&.for(rec["setup"].to_s[/\A\S+/]) or return nil
        { "predicted" => guess.label, "found" => rec["setup"], "why" => guess.why,
          "same" => guess.label == rec["setup"] }
      end

      def finish
        rec = Recommendation.new(entries: @entries, confirmed: @confirmed, slo: @slo, endpoint: @endpoint,
                                 budget_mb: @budget_mb, unreachable: @unreachable).to_h
        raise Error, "no setup could be measured on #{@endpoint}: #{@entries.map { |e| "#{e.label}: #{e.dropped}" }.first(3).join('; ')}" unless rec

        winner = @entries.find { |e| e.label == rec["setup"] }
        header = "Generated by rackbench tune on #{Time.now.utc.strftime('%Y-%m-%d')}: #{rec['reason']}\n" \
                 "Evidence: recommendation.json, tune.jsonl and trials.jsonl in #{@journal.path}"
        files = winner ? ConfigWriter.files(winner.setup, header: header) : {}
        @journal.write_files(files)
        rec = rec.merge("config_files" => files.keys, "start_command" => winner && ConfigWriter.command(winner.setup),
                        "memory_budget_mb" => @budget_mb, "time_budget_s" => @deadline.seconds,
                        "elapsed_s" => @deadline.elapsed.round(1), "stopped" => @state.stopped, "method" => METHOD,
                        "noise_band" => band.reference.round(4), "edges" => @edge, "seed" => @state.seed)
        if (versus = predicted_against_found(rec))
          rec = rec.merge("prediction" => versus)
          @say.call("predicted #{versus['predicted']} (#{versus['why']}); found #{versus['found']}")
        end
        @journal.recommend(rec)
        rec
      end

      # -- helpers ---------------------------------------------------------------

      def alive
        @entries.select(&:alive?)
      end

      # Seconds to keep back for the rounds after this one: one knee search
      # (after round 1) and two finalists' paired rounds at the planned window.
      def reserve(after:)
        confirm = ConfirmRound.cost(@lab, 2, @lab.window(ConfirmRound::PLANNED_RUN))
        after == 1 ? confirm + @lab.knee_cost(KNEE_LEVELS) : confirm
      end

      def setups(count)
        "#{count} setup#{count == 1 ? '' : 's'}"
      end

      def leader_by(metric)
        best = alive.select(&metric).max_by(&metric)
        best && [best.label, best.public_send(metric)]
      end

      def progress(round, text, leader, done: false)
        lead = leader ? ", leader #{leader[0]} (~#{Racing.rps(leader[1])} req/s)" : ""
        @say.call("round #{round}/#{ROUNDS}#{done ? ' done' : ''}: #{text}#{lead}")
      end

      def log_round(round, decisions, method)
        @journal.log("type" => "round", "round" => round, "method" => method, "noise_band" => band.reference.round(4),
                     "elapsed_s" => @deadline.elapsed.round(1),
                     "decisions" => decisions.map { |d| d.entry.to_row.merge("keep" => d.keep, "reason" => d.reason) })
      end

      def stop!(why)
        @state.stop!(why)
      end
    end
  end
end
