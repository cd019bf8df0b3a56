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
require_relative "tune/round_log"
require_relative "tune/knee_search"
require_relative "tune/probe_round"
require_relative "tune/knee_round"
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
    # logic runs without a server. Each round is an object that takes the
    # shared State and returns its result (MemoryRound, ProbeRound,
    # KneeRound, ConfirmRound, and EdgeRound for the look past the space's
    # edges); this class runs them in order and writes the recommendation.
    class Tune
      ROUNDS = 3
      METHOD = "successive halving with statistical ties kept (racing): round 1 probes every setup, " \
               "round 2 knee-searches the better half (skipping those another matches in less memory), " \
               "round 3 decides between the finalists in interleaved paired rounds at one rate " \
               "(paired intervals at each family's 95% over the looks, equivalence margin)"
      FOOTPRINT_PROBES = 3

      attr_reader :entries

      def initialize(lab:, journal:, deadline:, servers:, budget_mb:, slo:, endpoint:, cores:,
                     max_workers: nil, ladders: {}, say: nil, edge_steps: EdgeRound::MAX_STEPS, predict: true,
                     margin: Stats::Decision::DEFAULT_MARGIN, seed: 0)
        @edge_steps = edge_steps # steps past the space's edges (EdgeRound); 0: none
        @servers = servers
        @budget_mb = budget_mb
        @cores = cores
        @max_workers = max_workers
        @ladders = ladders # {server => thread counts}: replaces a server's own ladder (--puma-threads)
        @predict = predict # false (--no-predict): round 1 in its plain order; the prediction is still printed
        @state = State.new(lab: lab, journal: journal, deadline: deadline, slo: slo, endpoint: endpoint, margin: margin,
                           seed: seed, say: say || ->(_line) {})
      end

      # Runs the search; returns the recommendation (also in recommendation.json).
      def call
        s = @state
        s.say.call("tune #{s.endpoint}: SLO #{s.slo.describe}; memory budget #{Units.mib(@budget_mb)}; " \
                   "time budget #{(s.deadline.seconds / 60.0).round(1)} min")
        s.say.call("method: #{METHOD}")
        space = MemoryRound.new(s, servers: @servers, budget_mb: @budget_mb, cores: @cores, max_workers: @max_workers,
                                   ladders: @ladders, probes: FOOTPRINT_PROBES).call
        @entries = space.entries
        predict(space.prediction)
        ProbeRound.new(s, entries: @entries, band: space.band, budget_mb: @budget_mb,
                          prediction: @predict ? space.prediction : nil).call
        knees = KneeRound.new(s, entries: @entries, band: space.band).call
        confirmed = ConfirmRound.new(s).call(knees.finalists)
        edges = EdgeRound.new(s, entries: @entries, confirmed: confirmed, limits: space.limits, band: space.band, cores: @cores,
                                 max_workers: @max_workers, ladders: @ladders, steps: @edge_steps).call
        finish(space, knees.unreachable, edges)
      end

      private

      # The prediction, said and logged before round 1.
      def predict(prediction)
        return unless prediction

        prediction.guesses.each_value do |g|
          @state.journal.log(g.to_h.merge("type" => "prediction", "round" => 0))
          @state.say.call("prediction: #{g.label} (#{g.why}; workers: one per core, memory fits #{g.workers_cap})")
        end
      end

      # "predicted puma x2:3, found puma x2:5" (nil without a prediction for the winner's server).
      def predicted_against_found(prediction, rec)
        guess = prediction&.for(rec["setup"].to_s[/\A\S+/]) or return nil
        { "predicted" => guess.label, "found" => rec["setup"], "why" => guess.why,
          "same" => guess.label == rec["setup"] }
      end

      # The recommendation from the evidence there is (Recommendation), its
      # config files written, and how the search went.
      def finish(space, unreachable, edges)
        s = @state
        rec = Recommendation.new(entries: @entries, confirmed: edges.confirmed, slo: s.slo, endpoint: s.endpoint,
                                 budget_mb: @budget_mb, unreachable: unreachable).to_h
        raise Error, "no setup could be measured on #{s.endpoint}: #{@entries.map { |e| "#{e.label}: #{e.dropped}" }.first(3).join('; ')}" unless rec

        winner = @entries.find { |e| e.label == rec["setup"] }
        header = "Generated by rackbench tune on #{Time.now.utc.strftime('%Y-%m-%d')}: #{rec['reason']}\n" \
                 "Evidence: recommendation.json, tune.jsonl and trials.jsonl in #{s.journal.path}"
        files = winner ? ConfigWriter.files(winner.setup, header: header) : {}
        s.journal.write_files(files)
        rec = rec.merge("config_files" => files.keys, "start_command" => winner && ConfigWriter.command(winner.setup),
                        "memory_budget_mb" => @budget_mb, "time_budget_s" => s.deadline.seconds,
                        "elapsed_s" => s.deadline.elapsed.round(1), "stopped" => s.stopped, "method" => METHOD,
                        "noise_band" => space.band.reference.round(4), "edges" => edges.edge, "seed" => s.seed)
        if (versus = predicted_against_found(space.prediction, rec))
          rec = rec.merge("prediction" => versus)
          s.say.call("predicted #{versus['predicted']} (#{versus['why']}); found #{versus['found']}")
        end
        s.journal.recommend(rec)
        rec
      end
    end
  end
end
