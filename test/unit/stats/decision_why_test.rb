# frozen_string_literal: true

require "test_helper"
require "stringio"
require "rackbench/stats/decisions"
require "rackbench/stats/decision_text"
require_relative "../report/run_fixture"

# Issue 42, item 6: when nothing was decided, the words say the true reason
# and what would decide, never advice already followed; an interval too
# wide to mean anything is said as such, not printed as "-95% to +1242%".
class DecisionWhyTest < Minitest::Test
  F = Rackbench::RunFixture
  Stats = Rackbench::Stats

  # puma x2:5 at 1000 req/s (Little's law holds) and unicorn x2 at 40 req/s
  # with c=16: 0.4 s per request (16 / 39 req/s: 0.41 s at worst), so a 1 s trial is
  # too short for its latency (Stats::Validity: 10x the time per request, -d 5).
  def run_trials(rounds)
    puma = F.repetitions([1000, 1010, 990, 1005, 995].first(rounds), little: true, setup: "puma x2:5", endpoint: "/pause/0.05",
                                                                      concurrency: 16)
    unicorn = F.repetitions([40, 41, 39, 40, 40].first(rounds), little: true, setup: "unicorn x2", endpoint: "/pause/0.05",
                                                                 concurrency: 16)
    puma + unicorn
  end

  def test_a_cell_not_valid_is_the_reason_not_the_rounds
    decisions = Stats::Decisions.for_run(run_trials(5))
    refute decisions.any?
    assert_equal "No decisions between setups: 1 cell not valid (too short for its latency: run again with -d 5 " \
                 "or longer), which no number of rounds decides.", Stats::DecisionText.no_decisions(decisions)
  end

  def test_one_round_still_asks_for_rounds_and_names_the_cell_not_valid
    puma = F.repetitions([1000], little: true, setup: "puma x2:5", endpoint: "/hello", concurrency: 16)
    other = F.repetitions([990], little: true, setup: "unicorn x2", endpoint: "/hello", concurrency: 16)
    decisions = Stats::Decisions.for_run(puma + other + run_trials(1))
    assert_equal "No decisions between setups: a cell needs 2 or more rounds of each (run -r 3 or more); " \
                 "1 cell not valid (too short for its latency: run again with -d 4 or longer), which no number of " \
                 "rounds decides.", Stats::DecisionText.no_decisions(decisions)
  end

  # Rule: an undecided interval whose high end is more than 4 times its
  # low end (wider than from half to double) is too wide to read.
  def test_an_interval_too_wide_is_said_so_and_json_keeps_the_numbers
    a = [1000, 1000, 1000]
    b = [60, 1900, 400]
    trials = F.repetitions(a, setup: "a", endpoint: "/e", concurrency: 1) + F.repetitions(b, setup: "b", endpoint: "/e", concurrency: 1)
    entry = Stats::Decisions.for_run(trials).entries.find { |e| e.metric == "rps" }
    assert_equal :undecided, entry.decision.outcome
    assert_operator entry.decision.ci_high / entry.decision.ci_low, :>, 4
    text = Stats::DecisionText.phrase(entry)
    assert_match(/\Areq\/s undecided \(too wide to read: the per-round spread of B\/A is \d+%(, about \d+ more rounds|, over .*)\)\z/, text)
    refute_match(/CI|[+-]\d+% to/, text)
    assert entry.to_h.key?("ci_low"), "JSON keeps the numbers"
  end

  def test_an_interval_not_that_wide_keeps_its_numbers
    trials = F.repetitions([400, 410, 395, 405, 400], setup: "a", endpoint: "/e", concurrency: 1) +
             F.repetitions([412, 400, 420, 406, 430], setup: "b", endpoint: "/e", concurrency: 1)
    entry = Stats::Decisions.for_run(trials).entries.find { |e| e.metric == "rps" }
    assert_match(/undecided \(95% CI -[\d.]+% to \+[\d.]+%, about/, Stats::DecisionText.phrase(entry))
  end

  # Issue 42, item 6: long lists are counted on the first screen. Eight
  # setups whose rounds scatter (undecided on every measure) and one far
  # slower: the terminal lists the pairs with an outcome and counts the
  # rest, naming the command that lists them; --why lists every pair.
  def test_pairs_undecided_on_every_measure_are_counted_unless_why
    noisy = [[1000, 700, 1300], [1300, 1000, 700], [700, 1300, 1000], [1000, 1300, 700],
             [1300, 700, 1000], [700, 1000, 1300], [1000, 1000, 1300], [1300, 1300, 700]]
    trials = noisy.each_with_index.flat_map do |rps, i|
      F.repetitions(rps, p99s: rps.map { |x| 10_000.0 / x }, setup: "s#{i}", endpoint: "/e", concurrency: 1)
    end
    trials += F.repetitions([100, 101, 99], p99s: [90.0, 91.0, 89.0], setup: "slow", endpoint: "/e", concurrency: 1)
    decisions = Stats::Decisions.for_run(trials)
    all = Stats::DecisionText.lines(decisions)
    assert_operator all.size, :>, Stats::DecisionText::LIST_ALL

    short = StringIO.new
    Stats::DecisionText.render(decisions, short, why: false, run_dir: "runs/x")
    listed = short.string.lines.drop(1)
    assert_match(/slow against s\d \(3 rounds\): req\/s slower/, listed.first)
    assert_match(/\A  #{all.size - 1} pairs undecided on every measure \(per-round spread of B\/A in req\/s [\d.]+-[\d.]+%\): \
rackbench report runs\/x --why lists them\n\z/, listed.last)
    assert_equal 2, listed.size

    whole = StringIO.new
    Stats::DecisionText.render(decisions, whole, why: true)
    assert_equal all.size + 1, whole.string.lines.size
  end
end
