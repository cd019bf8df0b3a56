# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/student_t"

# Reference values: closed forms (Cauchy for df = 1), the binomial identity of
# I_x(a, b) for integer a, b, and the t tables of every statistics textbook.
class StudentTTest < Minitest::Test
  T = Rackbench::Stats::StudentT

  def test_incomplete_beta_matches_closed_forms
    assert_in_delta 0.6875, T.incomplete_beta(0.5, 2, 3), 1e-12 # sum of C(4, j) / 16 for j >= 2
    assert_in_delta 0.5, T.incomplete_beta(0.5, 0.5, 0.5), 1e-12
    assert_in_delta 1 - 0.7**3, T.incomplete_beta(0.3, 1, 3), 1e-12 # I_x(1, b) = 1 - (1 - x)^b
    assert_equal 0.0, T.incomplete_beta(0, 2, 3)
    assert_equal 1.0, T.incomplete_beta(1, 2, 3)
  end

  def test_cdf_matches_known_values
    assert_in_delta 0.5, T.cdf(0, 3), 1e-12
    assert_in_delta 0.75, T.cdf(1, 1), 1e-12 # Cauchy: 1/2 + atan(1)/pi
    assert_in_delta 0.5 + Math.atan(3) / Math::PI, T.cdf(3, 1), 1e-12
    assert_in_delta 0.94903026, T.cdf(2.0, 5), 1e-7
    assert_in_delta 0.05096974, T.cdf(-2.0, 5), 1e-7
    assert_in_delta 0.975, T.cdf(2.228139, 10), 1e-6
    assert_in_delta 0.975, T.cdf(1.959964, 1e7), 1e-6 # the normal limit
    assert_equal 1.0, T.cdf(Float::INFINITY, 4)
  end

  def test_quantile_matches_t_tables
    { 1 => 12.7062, 2 => 4.3027, 3 => 3.1824, 5 => 2.5706, 10 => 2.2281, 30 => 2.0423 }.each do |df, t|
      assert_in_delta t, T.quantile(0.975, df), 1e-4, "t(0.975, #{df})"
    end
    assert_in_delta 2.3534, T.quantile(0.95, 3), 1e-4
    assert_in_delta(-2.2281, T.quantile(0.025, 10), 1e-4)
  end

  def test_rejects_impossible_arguments
    assert_raises(ArgumentError) { T.cdf(1, 0) }
    assert_raises(ArgumentError) { T.quantile(1.0, 3) }
  end
end
