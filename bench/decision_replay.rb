# frozen_string_literal: true

# What is a rackbench decision's error rate, under run --decide's looks and
# at a fixed number of rounds? Printed side by side in one run:
#
# 1. Simulation through the product's own code: rounds of two setups whose
#    true req/s ratio B/A is 1.00 (A/A), 1.05 (on the margin), 1.10 and 0.95,
#    (and 2.00, how soon an obvious difference is decided),
#    with a per-round spread of the paired log ratio of 3% and 8% (and a
#    common drift of 10% a round that pairing removes), fed as trial records
#    to Stats::Decisions (fixed: 5 and 10 rounds) and to Runner::AdaptiveRounds
#    itself (--decide up to --max-rounds 20: the stopping loop a run uses),
#    each run's last decision read back. For contrast, the rule before the
#    looks were spent for: stop at the first round whose plain 95% interval
#    decides (the bench's own loop over the product's decision at Looks.fixed).
#    Targets: at the margin <= 5% wrong under --decide; A/A <= 1% faster or
#    slower; a true 10% decided right in >= 90% within 20 rounds at 3% spread.
#    Both spending functions the product has (Looks::SPENDINGS) are measured.
# 2. Replay of real rounds: bench/data/decision_rounds.json holds the per-round
#    req/s of two long runs made here (a CPU-bound pair and an A/A, 40 rounds
#    each: see its "made" field), and bench/data/replay_rounds.json those of
#    other workloads (a sleep-bound pair, an allocation-heavy one, recorded
#    by bench/record_rounds.rb, each saying beside what foreign load). The full run's decision (one look, all the
#    rounds) stands as the truth; --decide is replayed through AdaptiveRounds
#    on RUNS random orders of the rounds, and the decisions that contradict
#    the truth are counted: equivalent against decided apart, a direction
#    against the other, or an interval that does not meet the full run's
#    (the two cannot both hold). Then in measured order: from each round in
#    turn as the first, wrapping around (circular windows), which keeps any
#    dependence between neighbouring rounds that a shuffle hides; the rounds'
#    lag-1 autocorrelation and skew (Stats::Dependence) are printed beside.
#
#   bundle exec ruby -Ilib bench/decision_replay.rb [RUNS]   (default 1000; about 3 minutes)
#
# What is wrong, by truth (B against A):
#   1.00  faster or slower (beyond the margin); a direction claimed (faster or
#         slower by an undecided amount) is counted apart: it is wrong too, and
#         the stated 5% covers it
#   1.05  faster by more than the margin, equivalent, or slower in any way
#   0.95  the mirror of 1.05
#   1.10  equivalent, or slower in any way (right: faster; not decided: the rest)

require "json"
$stdout.sync = true
require_relative "support/decide_feed"
require "rackbench/stats/dependence"

RUNS = Integer(ARGV[0] || 1000)
MARGIN = DecideFeed::MARGIN
MAX_ROUNDS = 20
DATA = File.expand_path("data/decision_rounds.json", __dir__)
MORE = File.expand_path("data/replay_rounds.json", __dir__) # bench/record_rounds.rb: other workloads

def round_trials(round, pair) = DecideFeed.round_trials(round, pair)
def decision(trials, looks) = DecideFeed.decision(trials, looks)

# The req/s decision of B against A (flipped when the ranking put B first).
def outcome(trials, looks) = decision(trials, looks).first

# The product's own --decide loop over pre-drawn rounds (DecideFeed::Feed).
class Feed
  def initialize(rounds)
    @feed = DecideFeed::Feed.new(rounds, MAX_ROUNDS)
  end

  def call(repeat, spending) = @feed.call(repeat, spending: spending)
end

def draw(rng, ratio, spread, n)
  normal = -> { Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand) }
  Array.new(n) do
    a = 1000.0 * Math.exp(0.10 * normal.call)
    [a, a * ratio * Math.exp(spread * normal.call)]
  end
end

# truth: "1.00", "1.05", "0.95" or "1.10" (B/A).
def wrong?(truth, o)
  case truth
  when "1.00" then %i[higher lower].include?(o)
  when "1.05" then %i[higher equivalent lower direction_lower].include?(o)
  when "0.95" then %i[lower equivalent higher direction_higher].include?(o)
  else %i[equivalent lower direction_lower].include?(o)
  end
end

def direction?(o) = %i[direction_higher direction_lower].include?(o)

def pct(count, of) = format("%.1f%%", 100.0 * count / of)

started = Rackbench::Clock.now
rng = Random.new(20_261_127)
puts "1. Simulation (#{RUNS} runs each; margin 5%; the product's Stats::Decisions and Runner::AdaptiveRounds)"
[0.03, 0.08].each do |spread|
  %w[1.00 1.05 0.95 1.10 2.00].each do |truth|
    draws = Array.new(RUNS) { draw(rng, Float(truth), spread, MAX_ROUNDS) }
    cells = {}
    [5, 10].each do |n|
      outs = draws.map { |rounds| outcome(rounds.first(n).each_with_index.flat_map { |r, i| round_trials(i + 1, r) }, Rackbench::Stats::Looks.fixed) }
      cells["fixed #{n}"] = [outs.count { |o| wrong?(truth, o) }, outs.count { |o| o == :higher }, nil, outs.count { |o| direction?(o) }]
    end
    # The old rule: a plain 95% look after every round from 2, stop at the first decision.
    outs = draws.map do |rounds|
      trials = []
      o = nil
      rounds.each_with_index do |r, i|
        trials.concat(round_trials(i + 1, r))
        o = outcome(trials, Rackbench::Stats::Looks.fixed) if i >= 1
        break if %i[higher lower equivalent].include?(o)
      end
      o
    end
    cells["plain looks"] = [outs.count { |o| wrong?(truth, o) }, outs.count { |o| o == :higher }, nil, outs.count { |o| direction?(o) }]
    Rackbench::Stats::Looks::SPENDINGS.each do |spending|
      results = draws.map { |rounds| Feed.new(rounds).call(1, spending) }
      cells["--decide #{spending}"] = [results.count { |o, _| wrong?(truth, o) }, results.count { |o, _| o == :higher },
                                       results.sum { |_, n| n } / results.size.to_f, results.count { |o, _| direction?(o) }]
    end
    cells.each do |mode, (bad, higher, rounds, direction)|
      right = %w[1.10 2.00].include?(truth) ? "; decided faster #{pct(higher, RUNS)}" : ""
      right = "; a direction claimed #{pct(direction, RUNS)}" if truth == "1.00"
      mean = rounds ? format("; mean %.1f rounds", rounds) : ""
      puts format("  true %s, spread %d%%, %-24s %s wrong%s%s", truth, (spread * 100).round, "#{mode}:", pct(bad, RUNS), right, mean)
    end
  end
end

puts
data = JSON.parse(File.read(DATA))
puts "2. Replay of real rounds (#{data['made']}; #{RUNS} random orders each, --decide up to --max-rounds #{MAX_ROUNDS})"
# More workloads (bench/record_rounds.rb writes them): each run says how it
# was made, and beside what foreign load.
more = File.exist?(MORE) ? JSON.parse(File.read(MORE))["runs"] : {}
more.each { |name, run| puts "  #{name}: #{run['made']}" }
replay_rng = Random.new(7)
data["runs"].merge(more).each do |name, run|
  rounds = run["rounds"]
  full, full_low, full_high = decision(rounds.each_with_index.flat_map { |r, i| round_trials(i + 1, r) }, Rackbench::Stats::Looks.fixed)
  contradicts = lambda do |o, low, high|
    return true if high < full_low || low > full_high

    case full
    when :equivalent then %i[higher lower].include?(o)
    when :higher then %i[lower direction_lower equivalent].include?(o)
    when :direction_higher then %i[lower direction_lower].include?(o)
    when :lower then %i[higher direction_higher equivalent].include?(o)
    when :direction_lower then %i[higher direction_higher].include?(o)
    else false
    end
  end
  Rackbench::Stats::Looks::SPENDINGS.each do |spending|
    results = Array.new(RUNS) { Feed.new(rounds.shuffle(random: replay_rng)).call(1, spending) }
    bad = results.count { |o, _, low, high| contradicts.call(o, low, high) }
    decided = results.count { |o, _| %i[higher lower equivalent].include?(o) }
    puts format("  %-4s %s (%d rounds; all of them: %s, 95%% CI %.3f-%.3f): --decide %-15s %s contradict it, %s decided, " \
                "mean %.1f rounds", name, run["label"], rounds.size, full, full_low, full_high, spending, pct(bad, RUNS),
                pct(decided, RUNS), results.sum { |_, n| n } / RUNS.to_f)
  end
  # In measured order: a shuffle hides any dependence between neighbouring
  # rounds by construction, so the rounds are also replayed as measured,
  # from each of their starts in turn, wrapping around (circular windows).
  windows = Array.new(rounds.size) { |k| Feed.new(rounds.rotate(k)).call(1, :pocock) }
  bad = windows.count { |o, _, low, high| contradicts.call(o, low, high) }
  decided = windows.count { |o, _| %i[higher lower equivalent].include?(o) }
  d = rounds.map { |a, b| Math.log(b / a) }
  dep = Rackbench::Stats::Dependence.new(d)
  puts format("  %-4s in measured order (%d circular windows; lag-1 autocorrelation %.2f, skew %.2f): --decide pocock %s " \
              "contradict it, %s decided, mean %.1f rounds", name, windows.size, dep.lag1, dep.skew,
              pct(bad, windows.size), pct(decided, windows.size), windows.sum { |_, n| n } / windows.size.to_f)
end
puts format("(%.0f s)", Rackbench::Clock.now - started)
