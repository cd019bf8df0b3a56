# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/compare"
require_relative "../report/run_fixture"

class StatsCompareTest < Minitest::Test
  F = Rackbench::RunFixture
  CELL = { setup: "puma x2:3", endpoint: "/hello", concurrency: 8 }.freeze

  def compare(a, b)
    Rackbench::Stats::Compare.new(a, b)
  end

  def rps_change(cmp)
    cmp.rows.first.changes.find { |c| c.metric.key == "rps" }
  end

  def test_equal_distributions_are_the_same_within_noise
    cmp = compare(F.repetitions([98, 100, 102], **CELL), F.repetitions([101, 99, 100], **CELL))
    ch = rps_change(cmp)
    assert_equal :same, ch.verdict
    assert_in_delta 0.0, ch.change_pct, 1e-9
    assert_operator ch.test.p, :>, 0.05
    assert_empty cmp.slower_than(0)
  end

  def test_a_clear_difference_is_flagged_with_its_size
    cmp = compare(F.repetitions([78, 80, 82], **CELL), F.repetitions([197, 200, 203], **CELL))
    ch = rps_change(cmp)
    assert_equal :higher, ch.verdict
    assert ch.better?
    assert_in_delta 150.0, ch.change_pct, 1e-9
    assert_operator ch.test.p, :<, 0.001

    back = compare(F.repetitions([197, 200, 203], **CELL), F.repetitions([78, 80, 82], **CELL))
    assert_equal :lower, rps_change(back).verdict
    assert_equal 1, back.slower_than(50).size
    assert_empty back.slower_than(70), "a 60% drop is not more than 70%"
  end

  def test_one_repetition_cannot_be_tested
    cmp = compare(F.repetitions([80], **CELL), F.repetitions([200, 201], **CELL))
    assert_equal :untestable, rps_change(cmp).verdict
    assert_empty cmp.slower_than(0)
  end

  def test_p99_and_memory_are_compared_when_present
    mem_a = { "pss_total_mb" => 100.0 }
    mem_b = { "pss_total_mb" => 100.5 }
    a = F.repetitions([100, 101, 99], p99s: [10, 11, 10.5], memory: mem_a, **CELL)
    b = F.repetitions([100, 101, 99], p99s: [30, 31, 30.5], memory: mem_b, **CELL)
    changes = compare(a, b).rows.first.changes
    assert_equal %w[rps latency_ms.p99 memory.pss_total_mb], changes.map { |c| c.metric.key }
    p99 = changes[1]
    assert_equal :higher, p99.verdict
    refute p99.better?, "a higher p99 is worse"
    assert_equal %w[rps latency_ms.p99], compare(a, F.repetitions([100, 101], **CELL)).rows.first.changes.map { |c| c.metric.key }
  end

  def test_cells_in_one_run_only_are_listed
    a = F.repetitions([1, 2], **CELL) + F.repetitions([1, 2], **CELL, concurrency: 32)
    b = F.repetitions([1, 2], **CELL) + F.repetitions([1, 2], **CELL, setup: "thin")
    cmp = compare(a, b)
    assert_equal 1, cmp.rows.size
    assert_equal [["puma x2:3", 32]], cmp.only_a.map { |c| [c.setup, c.concurrency] }
    assert_equal [["thin", 8]], cmp.only_b.map { |c| [c.setup, c.concurrency] }
  end

  def test_paired_setups_meet_and_keep_both_labels
    a = F.repetitions([1, 2], **CELL) + F.repetitions([1, 2], **CELL, setup: "thin")
    b = F.repetitions([1, 2], **CELL, setup: "puma x2:3 on yjit") + F.repetitions([1, 2], **CELL, concurrency: 32, setup: "puma x2:3 on yjit")
    cmp = Rackbench::Stats::Compare.new(a, b, pairs: { "puma x2:3 on yjit" => "puma x2:3" })
    assert_equal [["puma x2:3", "puma x2:3 on yjit", "puma x2:3 → puma x2:3 on yjit"]],
                 cmp.rows.map { |r| [r.setup, r.setup_b, r.label] }
    assert_equal [["thin", 8]], cmp.only_a.map { |c| [c.setup, c.concurrency] }
    assert_equal [["puma x2:3 on yjit", 32]], cmp.only_b.map { |c| [c.setup, c.concurrency] }, "B's own label"
    assert_equal "thin", compare(a, F.repetitions([1, 2], **CELL, setup: "thin")).rows.first.label
  end
end
