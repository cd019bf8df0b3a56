# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/welch"

class WelchTest < Minitest::Test
  W = Rackbench::Stats::Welch

  # R: t.test(extra ~ group, data = sleep) -> t = -1.8608, df = 17.776, p-value = 0.07939
  def test_matches_r_on_the_sleep_data
    g1 = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0]
    g2 = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4]
    r = W.test(g1, g2)
    assert_in_delta 1.8608, r.t, 1e-4 # B minus A, so the sign is R's reversed
    assert_in_delta 17.776, r.df, 1e-3
    assert_in_delta 0.07939, r.p, 1e-5
    refute r.significant?
  end

  # Wikipedia, "Welch's t-test", example 2: t = 2.46, df = 25.0, p = 0.021.
  def test_matches_the_textbook_example
    a1 = [27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4]
    a2 = [27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4]
    r = W.test(a1, a2)
    assert_in_delta 2.4554, r.t, 1e-3
    assert_in_delta 24.99, r.df, 1e-2
    assert_in_delta 0.0214, r.p, 1e-4
    assert r.significant?
  end

  def test_a_clear_difference_is_significant_and_equal_samples_are_not
    assert W.test([78, 80, 82], [197, 200, 203]).p < 0.001
    assert_in_delta 1.0, W.test([78, 80, 82], [82, 80, 78]).p, 1e-12
  end

  def test_needs_two_values_on_each_side
    assert_nil W.test([80], [200, 201])
    assert_nil W.test([80, 81], [nil, 200])
  end

  # Zero spread in both samples: no test is possible, so no p and no verdict
  # (a p of 0 would call 5 vs 6 a certain difference on two runs each).
  def test_samples_without_spread_cannot_be_tested
    [[[5, 5], [5, 5]], [[5, 5], [6, 6]]].each do |a, b|
      r = W.test(a, b)
      assert r.no_variance?
      assert_nil r.p
      refute r.significant?
    end
    refute W.test([5, 5], [6, 7]).no_variance?, "spread on one side is enough"
  end
end
