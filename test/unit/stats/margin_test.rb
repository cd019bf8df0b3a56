# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/margin"

# The one place that says which margin applies: given, else the run's, else the default.
class MarginChoiceTest < Minitest::Test
  M = Rackbench::Stats::Margin

  def test_the_given_margin_wins_over_the_runs
    assert_equal [0.1, :given], M.choose(0.1, { "config" => { "margin" => 0.02 } })
  end

  def test_the_runs_margin_when_none_is_given
    assert_equal [0.02, :stored], M.choose(nil, { "config" => { "margin" => 0.02 } })
  end

  def test_the_default_when_the_run_has_none_or_a_nonsense_one
    [{}, { "config" => {} }, { "config" => { "margin" => 0 } }, { "config" => { "margin" => 5 } },
     { "config" => { "margin" => "5%" } }, nil].each do |meta|
      assert_equal [0.05, :default], M.choose(nil, meta), meta.inspect
    end
    assert_in_delta 0.05, M.of(nil, nil)
  end
end
