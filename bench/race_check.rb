# frozen_string_literal: true

# Issue 42's proof for the race (item 3), side by side in one run: six
# setups of known true req/s raced through the product's own Stats::Race
# (not a copy), the way Runner::AdaptiveRounds drives it: round 1 measures
# every setup; after each round the race is replayed from the stored trials
# (Race.for_run); the run stops at the first round where the cell is decided
# (a winner, or an equivalence group of leaders) or at --max-rounds; a round
# measures only the setups still contenders, so an eliminated setup's later
# rounds are never measured (they cost nothing, and the replay never sees
# them).
#
# Design: looks after every round from 3 to --max-rounds (Stats::Looks
# .sequential(first: 3, max: N): Pocock-type alpha spending, the union bound
# over looks, the dependence check: the defaults), N = 8 (the quick plan's
# budget) and N = 20 (--decide's default); the race's family is every pair of
# the six setups (15: ErrorBudget, as Stats::Race sets it); margin 5%.
#
# Each setup's req/s in round r is true x m_r x e_s,r: m_r a machine factor
# shared by every setup in that round (log sd 10%: what pairing removes),
# e_s,r the setup's own noise, drawn per setup by the generators of
# bench/support/decide_feed.rb (DecideFeed::NOISE):
#   normal 3% / 8%       independent normal, sd of each setup's log req/s
#                        (the pair's log ratio then spreads sqrt 2 x: 4.2%, 11.3%)
#   AR(1) 0.3, 3%        each setup's rounds follow each other alike
#   1 in 20 lose 30%     3% normal, one round in twenty 30% off (heavy tails)
#   this machine's       the recorded rounds' residuals (bench/data/
#                        decision_rounds.json), resampled, / sqrt 2 so that a
#                        pair's log ratio spreads as the recorded pairs' did
# The same draws serve both designs (the 8-round design reads their first 8).
#
# Scenarios (true req/s relative to the best):
#   a  one clear winner    1, 1/1.10, 0.87, 0.83, 0.79, 0.75
#   b  two tied within 2%  1, 0.98, 0.98/1.10, 0.85, 0.80, 0.75
#   c  all equal           1 x 6
#   d  five on the margin  1, 0.95 x 5 (a stress row: five pairs at once
#                          where any elimination is wrong; normal noise only)
#
# Counted per row (% of runs):
#   wrong winner     a winner declared that is not the true best, or the true
#                    best eliminated (a, b)
#   tie -> winner    b: a winner declared (the two leaders are 2% apart, inside
#                    the margin, so neither is faster beyond it)
#   equal -> unequal c: any setup eliminated (a winner, or a tie of fewer than
#                    six), stricter than "anything but tie/open"
#   any wrong        any claim of the race the truth contradicts: an
#                    elimination (B slower than its leader A beyond the margin)
#                    whose true B/A is >= 0.95, or a final equivalence whose
#                    true B/A is outside (0.95, 1.05): the per-cell rate
#                    Stats::Race states (<= 5%)
#   decided          a winner or a tie by the last look (winner / tie split)
#   rounds           mean rounds to the end (and, after "|", of the decided runs)
#   cells            mean setup-cells measured (each a trial and a boot);
#                    without the race, 6 x rounds
#
# Targets (issue 42): wrong winner <= 5%, tie called a winner <= 5% (and here:
# all-equal called unequal <= 5%, any wrong <= 5%). At 1000 runs a rate of 5%
# is measured to about +-1.4 points (95%), at 250 to about +-2.7 (0 of 250
# bounds the rate below 1.5%).
#
# Also checked in every run: the race of each round keeps the eliminations
# (setup, leader, look) of the round before, and the race replayed from the
# trials of every setup in every round (as if eliminated setups had gone on
# being measured) gives the same eliminations and outcome as the live race.
#
#   bundle exec ruby -Ilib bench/race_check.rb [RUNS_8] [RUNS_20]
#   (defaults 1000 runs a row for --max-rounds 8, 250 for 20: a 20-round run
#   replays the race after each of its up to 20 rounds, each replay up to 18
#   looks x 5 pairs, about 50 ms a run; about 5 minutes on this 2-core machine)

require "zlib"
$stdout.sync = true
require_relative "support/decide_feed"
require "rackbench/stats/race"

Race = Rackbench::Stats::Race
Looks = Rackbench::Stats::Looks

MARGIN = DecideFeed::MARGIN
RUNS = { 8 => Integer(ARGV[0] || 1000), 20 => Integer(ARGV[1] || 250) }.freeze
# The race's family (Stats::Race::FAMILIES): pairs, the product's, or
# leader (k - 1), measured to see what the pairs' slack costs:
# FAMILY=leader bundle exec ruby -Ilib bench/race_check.rb
FAMILY = (ENV["FAMILY"] || "pairs").to_sym
MACHINE = 0.10
ENDPOINT = "/e"
LEVEL = 8 # DecideFeed.trial's concurrency

SCENARIOS = {
  "a" => ["one clear winner", [1.0, 1 / 1.10, 0.87, 0.83, 0.79, 0.75]],
  "b" => ["two tied within 2%", [1.0, 0.98, 0.98 / 1.10, 0.85, 0.80, 0.75]],
  "c" => ["all equal", [1.0] * 6],
  "d" => ["five on the margin", [1.0] + [0.95] * 5]
}.freeze

machine = DecideFeed::NOISE.fetch("this machine's")
NOISES = {
  "normal 3%" => DecideFeed::NOISE.fetch("normal 3%"),
  "normal 8%" => DecideFeed::NOISE.fetch("normal 8%"),
  "AR(1) 0.3, 3%" => DecideFeed::NOISE.fetch("AR(1) 0.3, 3%"),
  "1 in 20 lose 30%" => DecideFeed::NOISE.fetch("1 in 20 lose 30%"),
  "this machine's" => ->(rng, n) { machine.call(rng, n).map { |x| x / Math.sqrt(2) } }
}.freeze
STRESS_NOISES = ["normal 3%", "normal 8%"].freeze # scenario d's rows

Result = Struct.new(:outcome, :winner, :contenders, :eliminated, :versus, :rounds, :cells, keyword_init: true)

# One run's rounds: {setup => [req/s of round 1, 2, ...]} for max rounds,
# the setups' names shuffled over the truths (no name wins a tie-break).
def draw(rng, truths, noise, max)
  names = Array.new(truths.size) { |i| "s#{i + 1}" }.shuffle(random: rng)
  m = Array.new(max) { MACHINE * DecideFeed.normal(rng) }
  truth = names.zip(truths).to_h
  values = names.to_h { |s| [s, noise.call(rng, max).each_with_index.map { |e, r| 1000.0 * truth[s] * Math.exp(m[r] + e) }] }
  [truth, values]
end

def eliminations(cell) = cell.eliminated.transform_values { |e| [e.a, e.decision.look] }

# The race as the runner runs it, to at most max rounds. Also counts, in
# $replay, the rounds whose race dropped an elimination made before, and the
# runs whose full-information replay differs.
def race(values, max)
  looks = Looks.sequential(first: 3, max: max)
  trials = []
  cell = nil
  cells = 0
  rounds = 0
  (1..max).each do |r|
    contenders = cell ? cell.contenders : values.keys
    contenders.each { |s| trials << DecideFeed.trial(s, r, values[s][r - 1]) }
    cells += contenders.size
    before = cell && eliminations(cell)
    cell = Race.for_run(trials, margin: MARGIN, looks: looks, family: FAMILY)[ENDPOINT, LEVEL]
    $replay[:rounds] += 1
    $replay[:dropped] += 1 if before && eliminations(cell).slice(*before.keys) != before
    rounds = r
    break if cell.decided?
  end
  full = (1..rounds).flat_map { |r| values.keys.map { |s| DecideFeed.trial(s, r, values[s][r - 1]) } }
  again = Race.for_run(full, margin: MARGIN, looks: looks, family: FAMILY)[ENDPOINT, LEVEL]
  $replay[:runs] += 1
  $replay[:differs] += 1 if eliminations(again) != eliminations(cell) || again.outcome != cell.outcome
  Result.new(outcome: cell.outcome, winner: cell.outcome == :winner ? cell.contenders.first : nil,
             contenders: cell.contenders, eliminated: eliminations(cell),
             versus: cell.versus.transform_values { |e| [e.a, e.decision.outcome] }, rounds: rounds, cells: cells)
end

def wrong_winner?(truth, res)
  best = truth.max_by { |_, v| v }.first
  (res.winner && res.winner != best) || res.eliminated.key?(best)
end

def any_wrong?(truth, res)
  out = res.eliminated.any? { |b, (a, _)| truth[b] / truth[a] >= 1 - MARGIN }
  eq = res.outcome == :tie && res.versus.any? { |b, (a, o)| o == :equivalent && !(truth[b] / truth[a]).between?(1 - MARGIN, 1 + MARGIN) }
  out || eq
end

$replay = Hash.new(0)
pct = ->(n, of) { format("%5.1f%%", 100.0 * n / of) }
TARGET = 0.05

started = Rackbench::Clock.now
family = FAMILY == :pairs ? "15 pairs" : "5 (the leader against each)"
puts "bench/race_check.rb: six setups raced through Stats::Race (run --decide with 3+ setups), family #{family}, " \
     "looks from round 3, Pocock-type spending, union bound, margin 5%, shared machine factor 10% a round; " \
     "#{RUNS[8]} runs a row at --max-rounds 8, #{RUNS[20]} at 20 (the same draws)"
header = format("%-4s %-22s %-17s %5s  %-7s %-7s %-7s %-7s  %-22s %-12s %13s  %s", "max", "scenario", "noise", "runs",
                "wrongW", "tie->W", "eq->neq", "anyW", "decided (winner/tie)", "rounds|dec", "cells (6xR)", "verdict")
puts header
[8, 20].each do |max|
  SCENARIOS.each do |key, (name, truths)|
    noises = key == "d" ? STRESS_NOISES : NOISES.keys
    noises.each do |noise|
      rng = Random.new(Zlib.crc32("#{key}|#{noise}"))
      n = RUNS[max]
      results = Array.new(n) do
        truth, values = draw(rng, truths, NOISES.fetch(noise), 20)
        [truth, race(values.transform_values { |v| v.first(max) }, max)]
      end
      ww = results.count { |t, r| wrong_winner?(t, r) }
      tw = results.count { |_, r| r.winner }
      neq = results.count { |_, r| !r.eliminated.empty? }
      aw = results.count { |t, r| any_wrong?(t, r) }
      win = results.count { |_, r| r.outcome == :winner }
      tie = results.count { |_, r| r.outcome == :tie }
      rounds = results.sum { |_, r| r.rounds } / n.to_f
      cells = results.sum { |_, r| r.cells } / n.to_f
      decided = results.reject { |_, r| r.outcome == :open }
      dec_rounds = decided.empty? ? "   -" : format("%4.1f", decided.sum { |_, r| r.rounds } / decided.size.to_f)
      checks = { "wrong winner" => (%w[a b].include?(key) ? ww : nil), "tie called a winner" => (key == "b" ? tw : nil),
                 "all equal called unequal" => (key == "c" ? neq : nil), "any wrong" => aw }.compact
      fails = checks.select { |_, c| c > TARGET * n }.keys
      verdict = fails.empty? ? "PASS" : "FAIL (#{fails.join(', ')} > 5%)"
      show = ->(count, applies) { applies ? pct.call(count, n) : "     - " }
      puts format("%-4d %-22s %-17s %5d  %-7s %-7s %-7s %-7s  %s (%s/%s) %4.1f | %s %6.1f (%5.1f)  %s", max, "#{key} #{name}", noise,
                  n, show.call(ww, %w[a b].include?(key)), show.call(tw, key == "b"), show.call(neq, key == "c"),
                  pct.call(aw, n), pct.call(win + tie, n), pct.call(win, n).strip, pct.call(tie, n).strip, rounds, dec_rounds, cells,
                  6 * rounds, verdict)
    end
  end
end
puts "wrongW: wrong winner (a winner not the true best, or the true best eliminated); tie->W: b, a winner declared; " \
     "eq->neq: c, any setup eliminated; anyW: any elimination or final equivalence the truth contradicts"
puts "replay: #{$replay[:rounds]} rounds' races in #{$replay[:runs]} runs; an earlier elimination dropped or changed " \
     "in #{$replay[:dropped]}; the race replayed with every setup measured every round differed in #{$replay[:differs]} runs"
puts format("(%.0f s)", Rackbench::Clock.now - started)
