# frozen_string_literal: true

# What the decision benches share: rounds of two setups as the trial
# records a run stores, fed to the product's own code (Stats::Decisions
# for one look, Runner::AdaptiveRounds for run --decide's loop), each
# run's last req/s decision of B against A read back.
require "json"
require "rackbench/clock"
require "rackbench/stats/decisions"
require "rackbench/stats/looks"
require "rackbench/runner/adaptive_rounds"

module DecideFeed
  MARGIN = 0.05
  FLIP = { higher: :lower, lower: :higher, direction_higher: :direction_lower, direction_lower: :direction_higher }.freeze

  module_function

  def normal(rng) = Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand)

  # A standardised gamma(k) draw (mean 0, sd 1, skew 2 / sqrt(k)); k a whole number.
  def gamma_z(rng, k) = (Array.new(k) { -Math.log(1 - rng.rand) }.sum - k) / Math.sqrt(k)

  # The residuals of the recorded rounds' per-round log ratios (bench/data/decision_rounds.json).
  RESIDUALS = JSON.parse(File.read(File.expand_path("../data/decision_rounds.json", __dir__)))["runs"].values.flat_map do |run|
    d = run["rounds"].map { |a, b| Math.log(b / a) }
    m = d.sum / d.size
    d.map { |x| x - m }
  end.freeze

  # Noise shaped like a real machine's: name => lambda(rng, n) giving n
  # per-round log noises (bench/decide_speed.rb: of the ratio B/A;
  # bench/race_check.rb: of each setup's req/s).
  NOISE = {
    "normal 3%" => ->(rng, n) { Array.new(n) { 0.03 * normal(rng) } },
    "normal 8%" => ->(rng, n) { Array.new(n) { 0.08 * normal(rng) } },
    "AR(1) 0.2, 3%" => lambda { |rng, n|
      x = normal(rng)
      Array.new(n) { x = 0.2 * x + Math.sqrt(1 - 0.04) * normal(rng); 0.03 * x }
    },
    "AR(1) 0.3, 3%" => lambda { |rng, n|
      x = normal(rng)
      Array.new(n) { x = 0.3 * x + Math.sqrt(1 - 0.09) * normal(rng); 0.03 * x }
    },
    "skew -1, 3%" => ->(rng, n) { Array.new(n) { -0.03 * gamma_z(rng, 4) } },
    "skew -2, 3%" => ->(rng, n) { Array.new(n) { -0.03 * gamma_z(rng, 1) } },
    "bimodal boots, 3%" => ->(rng, n) { Array.new(n) { 0.018 * normal(rng) + (rng.rand < 0.5 ? 0.024 : -0.024) } },
    "1 in 20 lose 30%" => lambda { |rng, n|
      Array.new(n) { 0.03 * normal(rng) + (rng.rand < 0.05 ? (rng.rand < 0.5 ? 1 : -1) * Math.log(0.7) : 0.0) }
    },
    "this machine's" => ->(rng, n) { Array.new(n) { RESIDUALS[rng.rand(RESIDUALS.size)] } }
  }.freeze

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
    # Two setups, A and B: not a race (Stats::Race.on? needs three or more).
    Plan = Struct.new(:config) do
      def setups = %w[A B]
    end
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
