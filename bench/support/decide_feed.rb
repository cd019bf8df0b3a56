# frozen_string_literal: true

# What the decision benches share: rounds of two setups as the trial
# records a run stores, fed to the product's own code (Stats::Decisions
# for one look, Runner::AdaptiveRounds for run --decide's loop), each
# run's last req/s decision of B against A read back.
require "rackbench/clock"
require "rackbench/stats/decisions"
require "rackbench/stats/looks"
require "rackbench/runner/adaptive_rounds"

module DecideFeed
  MARGIN = 0.05
  FLIP = { higher: :lower, lower: :higher, direction_higher: :direction_lower, direction_lower: :direction_higher }.freeze

  module_function

  # A trial record as a run stores it (Little's law holds, 10 s trials: valid).
  def trial(setup, round, rps)
    { "endpoint" => "/e", "setup" => setup, "concurrency" => 8, "rate" => nil, "repetition" => round, "loop" => "closed",
      "rps" => rps, "duration_s" => 10.0, "latency_ms" => { "mean" => 8000.0 / rps, "p99" => 20_000.0 / rps } }
  end

  def round_trials(round, (a, b)) = [trial("A", round, a), trial("B", round, b)]

  # [outcome, low, high] of B/A: the outcome and the interval it was read from.
  def decision(trials, looks)
    e = Rackbench::Stats::Decisions.for_run(trials, margin: MARGIN, looks: looks).entries.find { |x| x.metric == "rps" }
    return [:none, 0.0, Float::INFINITY] unless e

    d = e.decision
    return [d.outcome, d.ci_low, d.ci_high] if e.a == "A"

    [FLIP.fetch(d.outcome, d.outcome), 1 / d.ci_high, 1 / d.ci_low]
  end

  # The product's own --decide loop over pre-drawn rounds [[a, b], ...].
  class Feed
    Plan = Struct.new(:config)
    Quiet = Struct.new(:lines) do
      def note(*) = nil
      def warning(*) = nil
    end

    attr_reader :trials

    def path = "(a simulated run)" # what the loop names as the run directory

    def initialize(rounds, max_rounds)
      @rounds = rounds
      @max = [max_rounds, rounds.size].min
      @trials = []
    end

    # extra: the design's settings beyond --decide's (spending, boundary,
    # dependence: Stats::Looks.for_config). Returns [outcome, rounds, low, high].
    def call(repeat = 1, **extra)
      repeat.times { |i| @trials.concat(DecideFeed.round_trials(i + 1, @rounds[i])) }
      config = { repeat: repeat, max_rounds: @max, decide_time: 1e9, margin: MARGIN, decide: true, **extra }
      Rackbench::Runner::AdaptiveRounds.new(plan: Plan.new(config), store: self, listener: Quiet.new, started: Rackbench::Clock.now)
                                       .call { |rep| @trials.concat(DecideFeed.round_trials(rep, @rounds[rep - 1])) }
      o, low, high = DecideFeed.decision(@trials, Rackbench::Stats::Looks.for_config(config))
      [o, @trials.size / 2, low, high]
    end
  end
end
