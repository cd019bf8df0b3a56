# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/decision_reach"

# What run --decide's stopping rule can decide at all (issue 46: the old
# search tried every --max-rounds with every look, minutes for small
# margins). The new search must answer exactly what the old one did.
class DecisionReachTest < Minitest::Test
  Reach = Rackbench::Stats::DecisionReach
  Decision = Rackbench::Stats::Decision
  Looks = Rackbench::Stats::Looks
  ErrorBudget = Rackbench::Stats::ErrorBudget

  # The old predicate, every look of the design at max (Stats::Decision's
  # smallest_max_rounds before issue 46), kept here as the reference.
  def brute_decides?(repeat, margin, max)
    gap = [Math.log(1 + margin), -Math.log(1 - margin)].min
    looks = [repeat, 1].max >= max ? Looks.fixed : Looks.sequential(first: repeat, max: max)
    budget = ErrorBudget.new(looks: looks)
    looks.looks_until(max).any? { |n| Decision.t(1 - budget.alpha(n), n - 1) * Decision::SD_FLOOR / Math.sqrt(n) < gap }
  end

  # The old search: the first max from 3 that decides.
  def brute_smallest(repeat, margin, upto)
    (Looks::FIRST..upto).find { |max| brute_decides?(repeat, margin, max) }
  end

  # The predicate, the blocks of looks bounded and not computed one by one,
  # answers as every look does, for maxes to 60 (the smallest margin these
  # designs decide runs from 0.24% at 60 to 4.6% at 2: the grid crosses it).
  def test_the_design_decides_exactly_when_some_look_does
    [1, 5, 12].each do |repeat|
      [0.002, 0.003, 0.004, 0.005, 0.006, 0.008, 0.01, 0.0125, 0.013, 0.014, 0.05].each do |margin|
        [*2..14, 16, 20, 25, 30, 40, 50, 60].each do |max|
          assert_equal brute_decides?(repeat, margin, max), Reach.decides?(repeat: repeat, margin: margin, max: max),
                       "repeat #{repeat}, margin #{margin}, max #{max}"
        end
      end
    end
  end

  # The grid of issue 46: the old search's answers. Where it is quick (a
  # smallest max of 70 or less) it runs here; the two small margins are the
  # old code's answers, recorded once: bench/decide_check_speed.rb printed
  # them (before: 398 in 39 s and 146 in 5 s for repeat 1, the same for 3
  # and 5), beside the new search's.
  def test_the_smallest_max_rounds_is_the_old_search_s
    recorded = { 0.001 => 398, 0.002 => 87 }
    [1, 3, 5].each do |repeat|
      [0.001, 0.002, 0.005, 0.01, 0.05, 0.2].each do |margin|
        expected = recorded.fetch(margin) { brute_smallest(repeat, margin, 70) }
        assert_equal expected, Reach.smallest_max_rounds(repeat: repeat, margin: margin), "repeat #{repeat}, margin #{margin}"
      end
    end
    assert_equal 3, Reach.smallest_max_rounds(repeat: 1, margin: 0.05)
  end

  # Where the first look decides and a larger max no longer does (its share
  # of the rate falls as max grows), the search from a max on answers past
  # the gap, not the smaller max before it: 1.3% decides at 3, not at 4.
  def test_a_search_from_a_max_on_skips_what_only_a_smaller_max_decides
    assert Reach.decides?(repeat: 1, margin: 0.013, max: 3)
    refute Reach.decides?(repeat: 1, margin: 0.013, max: 4)
    assert_equal 3, Reach.smallest_max_rounds(repeat: 1, margin: 0.013)
    assert_equal 3, brute_smallest(1, 0.013, 70)
    assert_equal (5..70).find { |max| brute_decides?(1, 0.013, max) }, Reach.smallest_max_rounds(repeat: 1, margin: 0.013, from: 5)
  end

  # A margin below what any max up to the limit can decide: nil at once.
  def test_a_margin_too_small_for_any_max_is_answered_nil
    assert_nil Reach.smallest_max_rounds(repeat: 1, margin: 0.0001)
    assert_nil Reach.smallest_max_rounds(repeat: 1, margin: 0.0005, from: 21, limit: 1000)
    assert_equal 1000, Reach.smallest_max_rounds(repeat: 1, margin: Reach.smallest_margin(repeat: 1, max: 1000) * 1.0001,
                                                 from: 21, limit: 1000)
  end

  # The smallest margin: any margin above it decides at max, none below.
  def test_the_smallest_margin_is_the_edge_of_the_design
    [[1, 3], [1, 20], [3, 20], [5, 100], [1, 1000]].each do |repeat, max|
      edge = Reach.smallest_margin(repeat: repeat, max: max)
      assert Reach.decides?(repeat: repeat, margin: edge * 1.0001, max: max), "#{repeat} #{max}"
      refute Reach.decides?(repeat: repeat, margin: edge * 0.9999, max: max), "#{repeat} #{max}"
    end
    assert_operator Reach.smallest_margin(repeat: 1, max: 1000), :<, Reach.smallest_margin(repeat: 1, max: 20)
    assert_equal Float::INFINITY, Reach.smallest_margin(repeat: 1, max: 2), "a design with no look decides nothing"
  end
end
