# frozen_string_literal: true

require "test_helper"
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
    v = BV.of(cells([[100.0, 100.0], [120.0, 120.0], [90.0, 90.0]]), ->(_) { [5.0, 2.0] }).first
    assert_equal [3, 2.0, 0.0], [v.boots, v.takes, v.within_pct]
    assert_in_delta Math.sqrt(BV.send(:sample_var, [100, 120, 90].map { |x| Math.log(x) })) * 100, v.between_pct, 1e-9
    assert_equal 1, v.best_takes
  end

  def test_takes_that_differ_while_boots_agree_call_for_the_most_takes
    v = BV.of(cells([[90.0, 110.0], [110.0, 90.0], [90.0, 110.0]]), ->(_) { [5.0, 2.0] }).first
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

  def test_one_take_per_boot_or_one_boot_says_nothing
    assert_empty BV.of(cells([[100.0], [110.0], [90.0]]), ->(_) { [5.0, 2.0] })
    assert_empty BV.of(cells([[100.0, 110.0]]), ->(_) { [5.0, 2.0] })
  end
end
