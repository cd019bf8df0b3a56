# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/summary"

class SummaryTest < Minitest::Test
  S = Rackbench::Stats::Summary

  def test_a_summary_of_values
    s = S.of([3, nil, 1, 2.0])
    assert_equal [3, 2.0, 2.0, 1.0, 1.0, 3.0], s.to_a
    assert_equal({ n: 3, median: 2.0, mean: 2.0, stdev: 1.0, min: 1.0, max: 3.0 }, s.to_h)
    assert_in_delta 0.5, s.cv
    assert_equal 2.5, S.of([4, 1, 3, 2]).median
  end

  def test_no_values_and_one
    assert_equal 0, S.of([nil]).n
    assert_nil S.of([]).median
    assert_nil S.of([7.5]).cv
  end

  # Issue 46: one Float is summarised without the copies the general path
  # makes (compact, to_f, sort), and must give the same figures, bit for
  # bit: -0.0 stays the median, min and max while the mean is the sum's
  # (0.0), as a report's bytes have always said. [v, nil] takes the general path.
  def test_one_float_gives_what_the_general_path_gives
    [1000.0, 14.399999999999999, 1.0e12, 1.0e-05, 0.1 + 0.2, 0.0, -0.0, 2.0**70, Float::INFINITY].each do |v|
      assert_equal S.of([v, nil]).to_a.map(&:inspect), S.of([v]).to_a.map(&:inspect), v.inspect
    end
    assert_equal S.of([3, nil]).to_a, S.of([3]).to_a # an Integer: to_f'd, as ever
  end
end
