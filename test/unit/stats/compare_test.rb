# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/compare"
require_relative "../report/run_fixture"

class StatsCompareTest < Minitest::Test
  F = Rackbench::RunFixture
  CELL = { setup: "puma x2:3", endpoint: "/hello", concurrency: 8 }.freeze

  def compare(a, b, **opts)
    Rackbench::Stats::Compare.new(a, b, **opts)
  end

  def rps_change(cmp)
    cmp.rows.first.change("rps")
  end

  def test_equal_distributions_are_equivalent_only_inside_the_margin
    cmp = compare(F.repetitions([98, 100, 102], **CELL), F.repetitions([101, 99, 100], **CELL))
    ch = rps_change(cmp)
    assert_equal "equivalent", ch.outcome
    assert_equal Rackbench::Stats::Decision::UNPAIRED, ch.decision.method
    assert_in_delta 0.0, ch.change_pct, 0.02
    assert_operator ch.decision.ci_low, :>, 0.95
    assert_operator ch.decision.ci_high, :<, 1.05

    wide = compare(F.repetitions([900, 1000, 1100], **CELL), F.repetitions([1100, 900, 1000], **CELL))
    assert_equal "undecided", rps_change(wide).outcome, "the same figures, spread wider than the margin"
    assert_equal "equivalent", rps_change(compare(F.repetitions([900, 1000, 1100], **CELL), F.repetitions([1100, 900, 1000], **CELL),
                                                  margin: 0.3)).outcome
  end

  def test_a_clear_difference_is_decided_with_its_size
    cmp = compare(F.repetitions([78, 80, 82], **CELL), F.repetitions([197, 200, 203], **CELL))
    ch = rps_change(cmp)
    assert_equal "faster", ch.outcome
    assert_in_delta 150.0, ch.change_pct, 0.1, "B/A from the geometric means"
    assert_operator ch.decision.ci_low, :>, 2.3

    back = compare(F.repetitions([197, 200, 203], **CELL), F.repetitions([78, 80, 82], **CELL))
    assert_equal "slower", rps_change(back).outcome
    assert_equal 1, back.gate(0.5).slower.size
    assert_equal [:passed, 1], [back.gate(0.7).verdict, back.gate(0.7).passed.size], "a 60% drop is decided not beyond 70%"
  end

  # The gate: undecided cells that could be slower than its margin, and
  # cells with no decision, are named; those that cannot be slower are not.
  def test_the_gate_sorts_cells_by_what_is_known
    a = F.repetitions([900, 1100, 1000], **CELL) + F.repetitions([100, 101, 99], **CELL, concurrency: 16) +
        F.repetitions([50], **CELL, concurrency: 32)
    b = F.repetitions([1040, 850, 970], **CELL) + F.repetitions([103, 104, 102], **CELL, concurrency: 16) +
        F.repetitions([50, 51], **CELL, concurrency: 32)
    found = compare(a, b).gate(0.05)
    assert_empty found.slower
    assert_equal [8, 32], found.undecided.map(&:level)
    assert_equal [32], found.too_few.map(&:level)
    assert_equal [16], found.passed.map(&:level)
  end

  def test_one_repetition_cannot_be_decided
    cmp = compare(F.repetitions([80], **CELL), F.repetitions([200, 201], **CELL))
    ch = rps_change(cmp)
    assert ch.too_few?
    assert_nil ch.entry
    assert_equal "cannot decide", ch.outcome
    assert_equal 1, cmp.gate(0.05).too_few.size
  end

  def test_p99_and_memory_are_decided_when_present
    mem_a = { "pss_total_mb" => 100.0 }
    mem_b = { "pss_total_mb" => 100.5 }
    a = F.repetitions([100, 101, 99], p99s: [10, 11, 10.5], memory: mem_a, **CELL)
    b = F.repetitions([100, 101, 99], p99s: [30, 31, 30.5], memory: mem_b, **CELL)
    cmp = compare(a, b)
    changes = cmp.rows.first.changes
    assert_equal %w[rps latency_ms.p99 memory.pss_total_mb], changes.map { |c| c.metric.key }
    assert_equal %w[equivalent slower equivalent], changes.map(&:outcome), "a p99 three times higher is slower"
    assert_equal 3, cmp.decisions.entries.size, "one family"
    assert_equal %w[rps latency_ms.p99], compare(a, F.repetitions([100, 101], **CELL)).rows.first.changes.map { |c| c.metric.key }
  end

  # The req/s family over the whole comparison: a decision that stands
  # alone may not stand among twelve, every one of them counted, and the
  # interval shown is the family's (wider), the one the words were read from.
  def test_the_family_holds_every_comparison_and_shows_its_own_interval
    cells = (1..12).map { |c| CELL.merge(concurrency: c) }
    a = cells.flat_map { |cell| F.repetitions([100, 103, 97, 100], **cell) }
    b = cells.flat_map { |cell| F.repetitions([108, 112, 104, 108], **cell) }
    alone = compare(F.repetitions([100, 103, 97, 100], **CELL), F.repetitions([108, 112, 104, 108], **CELL), margin: 0.01)
    many = compare(a, b, margin: 0.01)
    assert_equal "faster", rps_change(alone).outcome
    many.rows.each do |r|
      d = r.change("rps").decision
      assert_equal 12, d.budget.family
      refute_equal "faster", r.change("rps").outcome, d.to_h.inspect
      assert_operator d.ci_low, :<, 1.01, "the printed interval reaches the margin: that is why it is not decided"
      assert_operator d.ci_low_unadjusted, :>, 1.01, "alone, the same data clear the margin"
    end
  end

  # A run that served nothing is a result: decided slower, not "fewer than
  # 2 repetitions" (0 req/s is taken as half a request over the trial).
  def test_a_setup_that_served_nothing_is_decided_slower
    a = F.repetitions([100, 103, 97], **CELL)
    b = F.repetitions([0, 0, 0], **CELL)
    cmp = compare(a, b)
    assert_equal "slower", rps_change(cmp).outcome, rps_change(cmp).decision.to_h.inspect
    found = cmp.gate(0.05)
    assert_equal 1, found.slower.size
    assert_empty found.too_few
  end

  def test_cells_in_one_run_only_are_listed
    a = F.repetitions([1, 2], **CELL) + F.repetitions([1, 2], **CELL, concurrency: 32)
    b = F.repetitions([1, 2], **CELL) + F.repetitions([1, 2], **CELL, setup: "thin")
    cmp = compare(a, b)
    assert_equal 1, cmp.rows.size
    assert_equal [["puma x2:3", 32]], cmp.only_a.map { |c| [c.setup, c.level] }
    assert_equal [["thin", 8]], cmp.only_b.map { |c| [c.setup, c.level] }
  end

  def test_paired_setups_meet_and_keep_both_labels
    a = F.repetitions([1, 2], **CELL) + F.repetitions([1, 2], **CELL, setup: "thin")
    b = F.repetitions([1, 2], **CELL, setup: "puma x2:3 on yjit") + F.repetitions([1, 2], **CELL, concurrency: 32, setup: "puma x2:3 on yjit")
    cmp = Rackbench::Stats::Compare.new(a, b, pairs: { "puma x2:3 on yjit" => "puma x2:3" })
    assert_equal [["puma x2:3", "puma x2:3 on yjit", "puma x2:3 → puma x2:3 on yjit"]],
                 cmp.rows.map { |r| [r.setup, r.setup_b, r.label] }
    assert_equal [["thin", 8]], cmp.only_a.map { |c| [c.setup, c.level] }
    assert_equal [["puma x2:3 on yjit", 32]], cmp.only_b.map { |c| [c.setup, c.level] }, "B's own label"
    assert_equal "thin", compare(a, F.repetitions([1, 2], **CELL, setup: "thin")).rows.first.label
  end
end
