# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/cells"
require "rackbench/stats/boot_variance"

# The split of a cell's req/s variance between boots and takes of a boot,
# and Kalibera & Jones's takes per boot, on figures whose split is known.
class BootVarianceTest < Minitest::Test
  BV = Rackbench::Stats::BootVariance

  def cells(boots)
    trials = boots.each_with_index.map do |takes, i|
      { "setup" => "puma x2:5", "endpoint" => "/x", "concurrency" => 8, "repetition" => i + 1,
        "rps" => takes.sum / takes.size, "take_rps" => takes }
    end
    Rackbench::Stats::Cells.new(trials).cells
  end

  def test_boots_that_differ_while_takes_agree_call_for_one_take_per_boot
    v = BV.of(cells([[100.0, 100.0], [120.0, 120.0], [90.0, 90.0]]), ->(_) { [5.0, 0.0, 2.0] }).first
    assert_equal [3, 2.0, 0.0], [v.boots, v.takes, v.within_pct]
    assert_in_delta Math.sqrt(BV.send(:sample_var, [100, 120, 90].map { |x| Math.log(x) })) * 100, v.between_pct, 1e-9
    assert_equal 1, v.best_takes
  end

  def test_takes_that_differ_while_boots_agree_call_for_the_most_takes
    v = BV.of(cells([[90.0, 110.0], [110.0, 90.0], [90.0, 110.0]]), ->(_) { [5.0, 0.0, 2.0] }).first
    assert_operator v.within_pct, :>, 10
    assert_equal 0.0, v.between_pct, "boot means equal"
    assert_equal BV::MAX_TAKES, v.best_takes
  end

  # k* = ceil(sqrt(c_boot / c_take * s_w^2 / s_b^2)): with s_w^2 = s_b^2 and a
  # boot costing 9 takes, 3 takes per boot.
  def test_best_takes_follow_the_costs
    assert_equal 3, BV.best_takes(0.01, 0.01, 18.0, 2.0)
    assert_equal 1, BV.best_takes(0.01, 0.01, 1.0, 2.0)
    assert_equal 1, BV.best_takes(0.0, 0.01, 18.0, 2.0)
  end

  # A take repeats every cell of its boot: one more take per boot costs a
  # trial for each of them. Here within/between = 5.777^2 / 4.048^2 = 2.037.
  # A boot of 18 s serving 1 cell: ceil(sqrt(18 / 2 x 2.037)) = 5 takes; the
  # same boot serving 9 cells (3 endpoints x 3 levels, 2 s warm-ups): c_boot
  # 18 + 3 x 2 = 24, c_take 9 x 2 = 18: ceil(sqrt(24 / 18 x 2.037)) = 2.
  def test_a_take_is_costed_over_every_cell_of_its_boot
    boots = [[100.0, 108.0, 94.0], [110.0, 103.0, 116.0], [96.0, 104.0, 99.0]]
    one = BV.of(cells(boots), ->(_) { [18.0, 0.0, 2.0] }).first
    trials = %w[/a /b /c].product([1, 8, 16]).flat_map do |endpoint, c|
      boots.each_with_index.map do |takes, i|
        { "setup" => "puma x2:5", "endpoint" => endpoint, "concurrency" => c, "repetition" => i + 1,
          "rps" => takes.sum / takes.size, "take_rps" => takes }
      end
    end
    nine = BV.of(Rackbench::Stats::Cells.new(trials).cells, ->(_) { [18.0, 2.0, 2.0] })
    assert_equal 9, nine.size
    assert_equal [5, 2], [one.best_takes, nine.first.best_takes], "costed per cell, the nine would say 5 too"
  end

  # Both parts nonzero, against R's one-way ANOVA (test/fixtures/stats/reference.R:
  # aov on the logs, within = MSW, between = (MSB - MSW) / k).
  def test_both_parts_nonzero_match_r
    ref = JSON.parse(File.read(File.expand_path("../../fixtures/stats/reference.json", __dir__)))["boot_split"]
    v = BV.of(cells(ref["boots"]), ->(_) { [5.0, 0.0, 2.0] }).first
    assert_in_delta ref["within_pct"], v.within_pct, 1e-6
    assert_in_delta ref["between_pct"], v.between_pct, 1e-6
    assert_operator v.between_pct, :>, 0
    assert_operator v.within_pct, :>, 0
  end

  def test_one_take_per_boot_or_one_boot_says_nothing
    assert_empty BV.of(cells([[100.0], [110.0], [90.0]]), ->(_) { [5.0, 0.0, 2.0] })
    assert_empty BV.of(cells([[100.0, 110.0]]), ->(_) { [5.0, 0.0, 2.0] })
  end
end
