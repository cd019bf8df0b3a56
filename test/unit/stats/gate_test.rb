# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/gate"
require "rackbench/stats/gate_text"
require "rackbench/stats/decisions"

# The one rule of --fail-if-slower P (compare and run --ref read it here):
# slower when B/A's interval lies wholly below 1 - P, undecided when it
# reaches below 1 - P or there is no decision, passed when it lies above;
# a missing cell fails closed. Exit 1, 3, 0; 1 for missing.
class StatsGateTest < Minitest::Test
  G = Rackbench::Stats::Gate
  P = 0.05

  # A Decision read at margin P from an interval of B/A (the rule reads
  # the outcome, made at the same margin, and the interval's low end).
  Read = Struct.new(:ci_low, :ci_high, :margin, :outcome, keyword_init: true)

  def read(low, high, margin: P)
    outcome = if high < 1 - margin then :lower
              elsif low > 1 + margin then :higher
              elsif low > 1 - margin && high < 1 + margin then :equivalent
              else :undecided
              end
    Read.new(ci_low: low, ci_high: high, margin: margin, outcome: outcome)
  end

  def test_the_rule
    assert_equal :slower, G.verdict(read(0.80, 0.90), P)
    assert_equal :undecided, G.verdict(read(0.80, 1.02), P), "reaches below 0.95 and above: could be slower"
    assert_equal :passed, G.verdict(read(0.97, 1.03), P), "equivalent"
    assert_equal :passed, G.verdict(read(1.10, 1.20), P), "faster"
    assert_equal :passed, G.verdict(read(0.98, 1.30), P), "undecided two-sided, but never below 0.95"
    assert_equal :undecided, G.verdict(nil, P), "no decision (fewer than 2 of both) never passes"
  end

  # The boundary: a low end just below 1 - P is undecided, not passed,
  # however near 1 its ratio, and however far above 1 + P it reaches.
  def test_a_low_end_below_one_minus_p_is_undecided_not_passed
    assert_equal :undecided, G.verdict(read(0.9499, 1.01), P)
    assert_equal :undecided, G.verdict(read(0.9499, 1.60), P)
    assert_equal :passed, G.verdict(read(0.9501, 1.01), P)
    assert_equal :passed, G.verdict(read(0.9499, 1.01, margin: 0.06), 0.06), "a larger P passes what a smaller does not"
  end

  def test_a_decision_made_at_another_margin_is_refused
    assert_raises(ArgumentError) { G.verdict(read(0.8, 0.9, margin: 0.1), P) }
  end

  def cell(level, low = nil, high = nil)
    entry = low && Rackbench::Stats::Decisions::Entry.new(metric: "rps", decision: read(low, high))
    G::Cell.new(endpoint: "/hello", level: level, loop: "closed", a: "main@1", b: "HEAD@2", entry: entry)
  end

  # The gate's verdict is its worst cell's: missing, slower, undecided, passed.
  def test_the_exit_status_is_the_worst_cell_s
    passed = cell(1, 0.97, 1.03)
    assert_equal [:passed, 0], [G.new(P, cells: [passed]).verdict, G.new(P, cells: [passed]).status]
    assert_equal 3, G.new(P, cells: [passed, cell(2, 0.9, 1.01)]).status
    assert_equal 3, G.new(P, cells: [passed, cell(2)]).status
    slower = G.new(P, cells: [passed, cell(2, 0.9, 1.01), cell(3, 0.8, 0.9)])
    assert_equal [:slower, 1, [3], [2]], [slower.verdict, slower.status, slower.slower.map(&:level), slower.undecided.map(&:level)]
    missing = G.new(P, cells: [passed], missing: [cell(4)])
    assert_equal [:missing, 1], [missing.verdict, missing.status]
    assert_equal [0.05, 0.07], [G.share(0, 0.05), G.share(7, 0.05)], "--fail-if-slower 0: the comparison's margin"
  end

  def test_one_sentence_per_verdict
    text = lambda do |gate|
      Rackbench::Stats::GateText.new(gate, percent: 5, to_decide: "add rounds", cause: "it failed").sentence
    end
    assert_match(%r{\AUndecided: 1 cell\(s\) cannot be decided, with fewer than 2 rounds of both: /hello c=2 HEAD@2 against main@1: add rounds; --fail-if-slower 5 neither passes nor fails \(exit 3\)\z},
                 text.call(G.new(P, cells: [cell(2)])))
    assert_match(%r{\AGate failed: HEAD@2 lacks 1 cell\(s\) of main@1: /hello c=4 HEAD@2 against main@1 \(it failed\); --fail-if-slower 5 cannot pass on missing measurements\z},
                 text.call(G.new(P, cells: [], missing: [cell(4)])))
  end
end
