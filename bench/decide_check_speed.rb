# frozen_string_literal: true

# How long does run --decide's check of its design take before the first
# round (Config::Rules::Decide: can the stopping rule decide anything within
# the margin by --max-rounds; else the smallest --max-rounds that can, or the
# margin)? Issue 46: --margin 0.1 (a share of 0.001) took 39 s before the
# run's first line, --margin 0.01 was still silent at 590 s.
#
# 1. Before and after, side by side, per margin (a share) and --repeat: the
#    smallest --max-rounds from 3 to 10,000 that can decide, by the old
#    search (BEFORE below: every --max-rounds from 3 up, every look of each,
#    the code Stats::Decision.smallest_max_rounds had; stopped after CAP
#    seconds) and by Stats::DecisionReach.smallest_max_rounds, with the
#    answers, which must agree; then the whole rule's time at --max-rounds
#    20 and what it says.
# 2. The two properties DecisionReach's bisection rests on, checked here
#    (bench/decide_check_speed.rb is named in its comment): the last look's
#    half-width falls as --max-rounds grows, for every --max-rounds from 4 to
#    10,000; and within a design, the looks after the first narrow round
#    by round, for every design up to 200 and some to 10,000 (which makes
#    the last the narrowest of them).
#
#   ruby -Ilib bench/decide_check_speed.rb [CAP]   (default 60 s per old search; a few minutes in all)

$stdout.sync = true
require "timeout"
require "rackbench/plan/config"
require "rackbench/stats/decision_reach"

module DecideCheckSpeed
  Decision = Rackbench::Stats::Decision
  Looks = Rackbench::Stats::Looks
  ErrorBudget = Rackbench::Stats::ErrorBudget
  Reach = Rackbench::Stats::DecisionReach
  MARGINS = [0.0001, 0.001, 0.002, 0.005, 0.01, 0.05, 0.2].freeze
  REPEATS = [1, 3, 5].freeze

  module_function

  # BEFORE: Stats::Decision.smallest_max_rounds as it was (every max, every look).
  def before(repeat:, margin:)
    gap = [Math.log(1 + margin), -Math.log(1 - margin)].min
    (Looks::FIRST..Decision::MAX_ROUNDS).find do |max|
      looks = [repeat, 1].max >= max ? Looks.fixed : Looks.sequential(first: repeat, max: max)
      budget = ErrorBudget.new(looks: looks)
      looks.looks_until(max).any? { |n| Decision.t(1 - budget.alpha(n), n - 1) * Decision::SD_FLOOR / Math.sqrt(n) < gap }
    end
  end

  def timed
    Decision::QUANTILES.clear # no quantile remembered from the last search
    t = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    value = yield
    [value, Process.clock_gettime(Process::CLOCK_MONOTONIC) - t]
  end

  def rule(margin, repeat)
    cfg = Rackbench::Config.build.to_h.merge(decide: true, margin: margin, repeat: repeat, max_rounds: 20)
    Rackbench::Config::Rules::Decide.check(cfg)
    "passes"
  rescue Rackbench::UsageError => e
    e.message[/give .*\z/]
  end

  def speed(cap)
    puts "1. smallest --max-rounds (3..10,000), before (every max, every look) and after (DecisionReach)"
    printf "%-8s %-7s %-6s %12s %8s %10s  %s\n", "--margin", "repeat", "before", "before s", "after", "after ms", "same"
    mismatches = 0
    REPEATS.each do |repeat|
      MARGINS.each do |margin|
        old, old_s = begin
          Timeout.timeout(cap) { timed { before(repeat: repeat, margin: margin) } }
        rescue Timeout::Error
          [:stopped, cap]
        end
        new, new_s = timed { Reach.smallest_max_rounds(repeat: repeat, margin: margin) }
        same = old == :stopped ? "-" : (old == new ? "yes" : "NO")
        mismatches += 1 if same == "NO"
        printf "%-8g %-7d %-6s %12s %8s %10.1f  %s\n", margin * 100, repeat, old == :stopped ? "?" : old.inspect,
               old == :stopped ? "> #{cap} (stopped)" : format("%.2f", old_s), new.inspect, new_s * 1000, same
      end
    end
    puts "answers that differ: #{mismatches}"
    puts
    puts "   the whole rule at --max-rounds 20 (Config::Rules::Decide.check)"
    MARGINS.each do |margin|
      said, s = timed { rule(margin, 1) }
      printf "   --margin %-7g %7.1f ms  %s\n", margin * 100, s * 1000, said
    end
  end

  def half(n, max)
    budget = ErrorBudget.new(looks: Looks.sequential(first: 1, max: max))
    Decision.t(1 - budget.alpha(n), n - 1) * Decision::SD_FLOOR / Math.sqrt(n)
  end

  def properties
    puts
    puts "2. what the bisection rests on"
    rises = (5..10_000).count { |max| half(max, max) >= half(max - 1, max - 1) }
    puts "   the last look's half-width fails to fall with --max-rounds (4..10,000): #{rises} times"
    designs = (5..200).to_a + [300, 500, 1000, 2000, 5000, 10_000]
    widens = designs.sum do |max|
      halves = (4..max).map { |n| half(n, max) } # a look after the first: first <= 3 < n
      halves.each_cons(2).count { |a, b| b >= a }
    end
    puts "   a look after the first wider than the one before it (#{designs.size} designs, every look): #{widens} times"
  end
end

cap = Float(ARGV.fetch(0, "60"))
DecideCheckSpeed.speed(cap)
DecideCheckSpeed.properties
