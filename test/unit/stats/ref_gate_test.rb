# frozen_string_literal: true

require "test_helper"
require "support/ref_gate_trials"
require "rackbench/stats/ref_gate"
require "rackbench/cli/ref_gate"

# The gate of run --ref BASE --ref HEAD --fail-if-slower P, on rounds whose
# answer is known: HEAD 2x slower fails it (1), HEAD alike passes (0), a
# spread that cannot tell is undecided (3), a HEAD that served nothing where
# BASE did is slower, and a HEAD with no cell fails closed.
class RefGateTest < Minitest::Test
  include Rackbench::RefGateTrials
  GROUPS = Rackbench::RefGateTrials::GROUPS

  def gate(base, head, margin: 0.05)
    Rackbench::Stats::RefGate.new(trials(base, head), GROUPS, margin: margin)
  end

  def words(found, percent: 5)
    Rackbench::CLI::RefGate.new(found, percent: percent, share: percent / 100.0).sentence
  end

  def test_twice_as_slow_fails_the_gate
    g = gate([400, 410, 395, 405], [200, 206, 199, 201])
    assert_equal [1, 1], [g.status, g.slower.size]
    assert_match(%r{\ASlower: HEAD@5d6e7f8 is decided slower than main@1a2b3c4 by more than 5% in 1 cell\(s\): /work c=2 HEAD@5d6e7f8 against main@1a2b3c4 \(req/s slower by 50% \(95% CI \d+-\d+%\)\) \(--fail-if-slower 5, exit 1\)\z},
                 words(g))
  end

  def test_alike_passes_the_gate
    g = gate([400, 410, 395, 405, 402], [401, 409, 396, 404, 403])
    assert_equal [0, 1], [g.status, g.passed.size]
    assert_match(%r{\APassed: HEAD@5d6e7f8 is not slower than main@1a2b3c4 by more than 5% in 1 cell\(s\): /work c=2 HEAD@5d6e7f8 against main@1a2b3c4 \(req/s equivalent within \+-5%}, words(g))
  end

  # Its interval above -5% but reaching beyond +5%: two-sided undecided,
  # and the gate's one-sided answer said as such, not "undecided".
  def test_a_pass_above_the_margin_says_not_slower
    g = gate([400, 410, 395, 405, 400], [412, 400, 420, 406, 430])
    entry = g.passed.first&.entry
    assert_equal [0, :undecided], [g.status, entry&.decision&.outcome], entry&.decision.inspect
    assert_match(%r{\APassed: .*/work c=2 HEAD@5d6e7f8 against main@1a2b3c4 \(req/s not slower by more than 5% \(95% CI -\d[\d.]*% to \+\d[\d.]*%\)\) \(--fail-if-slower 5\)\z},
                 words(g))
    refute_match(/undecided/, words(g))
  end

  def test_a_spread_that_cannot_tell_is_undecided
    g = gate([400, 300, 450], [380, 420, 310])
    assert_equal [3, 1], [g.status, g.undecided.size]
    assert_match(/\AUndecided: 1 cell\(s\) could be slower .*--fail-if-slower 5 neither passes nor fails \(exit 3\)\z/, words(g))
  end

  def test_serving_nothing_is_slower_and_a_missing_cell_fails_closed
    assert_equal 1, gate([400, 410, 395], [0, 0, 0]).status, "0 req/s is a result: slower"
    missing = Rackbench::Stats::RefGate.new(trials([400, 410], []), GROUPS, margin: 0.05)
    assert_equal [1, 1], [missing.status, missing.missing.size]
    assert_match(%r{\AGate failed: HEAD@5d6e7f8 lacks 1 cell\(s\) of main@1a2b3c4: /work c=2 HEAD@5d6e7f8 against main@1a2b3c4 \(the ref failed}, words(missing))
  end

  # A larger gate passes what a smaller one fails.
  def test_the_gate_reads_at_its_own_margin
    assert_equal 0, gate([400, 410, 395, 405], [360, 371, 354, 366], margin: 0.2).status
    assert_equal 1, gate([400, 410, 395, 405], [360, 371, 354, 366], margin: 0.02).status
  end
end
