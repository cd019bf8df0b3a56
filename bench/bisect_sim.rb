# frozen_string_literal: true

# Issue 44's proof, its error rates, through the product's own code on
# simulated rounds (bench/bisect.rb makes real bisections: hours for the
# issue's 20 x 64 commits on 2 cores; this bench gives the rates in
# minutes, and the rounds a real one would take):
#
# - the search is Search::Bisect::Search with its Budget (K decisions, each
#   at 5%/K; the found commit against its parent included);
# - each step is a run --decide: Runner::AdaptiveRounds (the product's
#   loop: looks from round 3, each spending its share of the step's
#   rate_share, stopping at the first decision) over rounds drawn for that
#   step, read by Stats::Gate.verdict at the margin as CLI::BisectStep
#   reads a real step (slower: bad; passed: good; else undecided);
# - a step's rounds: B/A per round = the true ratio of the commit to its
#   base x e^noise, the noise one of bench/support/decide_feed.rb's
#   (heavy tails, bimodal boots, correlated rounds, this machine's
#   recorded residuals), A's own level drifting 10% a round (pairing
#   removes it).
#
# Histories of COMMITS commits (margin 5%):
#   step    one commit, drawn per bisection, makes the endpoint 10% slower
#           (B/A 0.90 from it on): right is that commit named;
#   none    no change: right is "nothing to bisect";
#   spread  three commits in a row each 4% slower (0.96^3 = 0.885 at bad):
#           wrong is any commit named as the sole cause (spread_judge
#           says what else is right and wrong).
#
#   bundle exec ruby -Ilib bench/bisect_sim.rb [COMMITS] [RUNS] [MAX_ROUNDS]   (defaults 64 200 12)
#
# Minutes: each step's rounds x SECONDS_PER_ROUND (measured here: a round
# of two refs of puma x1:2 at -d 2 with --cpus auto took 12-18 s; 15 s is
# used), stated as an estimate. Limits: a step's rounds are independent of
# the other steps' (fresh draws), so a machine whose noise drifts over an
# hour is not modelled; commits are never skipped here.

require_relative "support/decide_feed"
require "rackbench/search/bisect/search"
require "rackbench/stats/gate"

$stdout.sync = true
COMMITS = Integer(ARGV[0] || 64)
RUNS = Integer(ARGV[1] || 200)
MAX_ROUNDS = Integer(ARGV[2] || 12)
MARGIN = DecideFeed::MARGIN
SECONDS_PER_ROUND = 15.0
NOISES = ["normal 3%", "AR(1) 0.3, 3%", "skew -2, 3%", "bimodal boots, 3%", "1 in 20 lose 30%", "this machine's"].freeze
Bisect = Rackbench::Search::Bisect
Verdict = Struct.new(:outcome, :ci_low, :margin) # what Stats::Gate.verdict reads of a decision

def path
  commits = (0..COMMITS).map do |i|
    Bisect::Path::Commit.new(sha: format("%07x", i + 1) + ("0" * 33), tree: "tree#{i}", subject: "commit #{i}")
  end
  Bisect::Path.new("/sim", nil, described: commits)
end

# The true B/A of commit i against good, for a history.
def truth(kind, at)
  case kind
  when :step then ->(i) { i >= at ? 0.90 : 1.0 }
  when :none then ->(_) { 1.0 }
  when :spread then ->(i) { 0.96**(i - at + 1).clamp(0, 3) }
  end
end

# A decider as CLI::BisectStep is one: a run --decide of the commit
# against good (or base), its verdict the gate's.
class SimStep
  attr_reader :rounds

  def initialize(ratio, noise, rng, share)
    @ratio = ratio
    @noise = DecideFeed::NOISE.fetch(noise)
    @rng = rng
    @share = share
    @rounds = 0
  end

  def call(commit, index, base: nil)
    true_ratio = @ratio.call(index) / (base ? @ratio.call(Integer(base.subject[/\d+/])) : 1.0)
    draws = @noise.call(@rng, MAX_ROUNDS).map do |e|
      a = 1000.0 * Math.exp(0.10 * DecideFeed.normal(@rng))
      [a, a * true_ratio * Math.exp(e)]
    end
    outcome, n, low, high = DecideFeed::Feed.new(draws, MAX_ROUNDS).call(1, rate_share: @share)
    @rounds += n
    verdict = { slower: :bad, passed: :good, undecided: :undecided }
              .fetch(Rackbench::Stats::Gate.verdict(Verdict.new(outcome, low, MARGIN), MARGIN))
    Bisect::Step.new(sha: commit.sha, tree: commit.tree, subject: commit.subject, verdict: verdict, outcome: outcome,
                     ratio: Math.sqrt(low * high), ci_low: low, ci_high: high, rounds: n, base: base&.sha)
  end
end

# A commit named counts whether or not its own step (against its parent)
# was decided. In a spread, right is any answer that names no commit as
# the sole cause and points at the spread: "spread", a range (undecided,
# skipped, budget spent) that holds one of its commits, or the first commit
# past the margin with its own share said to be open; wrong is a commit
# named as the sole cause (its own step decided slower, or not made), a
# range beside the spread, or "nothing to bisect".
def judge(kind, at, outcome)
  named = outcome.named && outcome.hi
  case kind
  when :step then named == at ? :right : (named ? :wrong : :undecided)
  when :none then outcome.kind == :no_slowdown ? :right : (named ? :wrong : :undecided)
  when :spread then spread_judge(at, outcome, named)
  end
end

def spread_judge(at, outcome, named)
  return :right if outcome.kind == :spread
  return (outcome.own&.verdict.nil? || outcome.own.verdict == :bad ? :wrong : :right) if named
  return :wrong if outcome.kind == :no_slowdown
  return :undecided if outcome.kind == :bad_open

  ((outcome.lo + 1)..outcome.hi).cover?(at) || ((outcome.lo + 1)..outcome.hi).cover?(at + 2) ? :right : :wrong
end

started = Rackbench::Clock.now
the_path = path
budget = Bisect::Budget.new(COMMITS)
puts "bench/bisect_sim.rb: #{COMMITS} commits, #{RUNS} bisections a row, each step run --decide to --max-rounds " \
     "#{MAX_ROUNDS} at #{format('%.4g', budget.share)} of the 5% rate (#{budget.decisions} decisions), margin 5%"
puts format("%-18s %-7s %7s %7s %9s %8s %s", "noise", "history", "right", "wrong", "undecided", "rounds", "minutes (median, max)")
NOISES.each do |noise|
  %i[step none spread].each do |kind|
    rng = Random.new([noise, kind].hash & 0xffffffff)
    rows = Array.new(RUNS) do
      at = kind == :spread ? rng.rand(1..COMMITS - 2) : rng.rand(1..COMMITS)
      step = SimStep.new(truth(kind, at), noise, rng, budget.share)
      outcome = Bisect::Search.new(the_path, decider: step, budget: budget).call
      [judge(kind, at, outcome), step.rounds]
    end
    count = ->(v) { rows.count { |r| r.first == v } }
    minutes = rows.map { |_, n| n * SECONDS_PER_ROUND / 60 }.sort
    puts format("%-18s %-7s %6.1f%% %6.1f%% %8.1f%% %8.1f %5.0f, %3.0f", noise, kind, 100.0 * count.call(:right) / RUNS,
                100.0 * count.call(:wrong) / RUNS, 100.0 * count.call(:undecided) / RUNS, rows.sum(&:last) / RUNS.to_f,
                minutes[minutes.size / 2], minutes.last)
  end
end
puts "#{(Rackbench::Clock.now - started).round} s"
