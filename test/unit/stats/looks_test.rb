# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/looks"

class LooksTest < Minitest::Test
  Looks = Rackbench::Stats::Looks

  # The shares of all the looks add up to the whole rate (the union bound's
  # sum), whatever the first look; nothing is spent outside first..max.
  def test_the_shares_of_every_look_add_up_to_one
    [[1, 20], [5, 20], [3, 10], [3, 4]].each do |first, max|
      looks = Looks.sequential(first: first, max: max)
      assert_in_delta 1.0, (0..max + 5).sum { |n| looks.share(n) }, 1e-12, "#{first}..#{max}"
      assert_equal 0.0, looks.share(max + 1)
      assert_equal 0.0, looks.share(looks.first - 1)
    end
  end

  # Pocock-type: ln(1 + (e - 1) t); the first look at 3 of 20 spends
  # ln(1 + 1.718 x 0.15) = 0.22931827 (R: log(1 + (exp(1) - 1) * 3 / 20)).
  def test_the_pocock_type_function_and_the_first_look
    looks = Looks.sequential(first: 1, max: 20)
    assert_equal 3, looks.first, "no look before round 3 (t on 1 degree of freedom)"
    assert_in_delta 0.22931827, looks.share(3), 1e-8
    assert_in_delta Math.log(1 + (Math::E - 1) * 0.2) - Math.log(1 + (Math::E - 1) * 0.15), looks.share(4), 1e-12
    assert_equal 1.0, Looks.fixed.share(7), "one look spends it all"
  end

  def test_a_runs_design_from_its_configuration
    assert_equal [3, 20], Looks.for_config({ "decide" => true, "repeat" => 1, "max_rounds" => 20 }).then { |l| [l.first, l.max] }
    assert_equal [5, 12], Looks.for_config({ decide: true, repeat: 5, max_rounds: 12 }).then { |l| [l.first, l.max] }
    refute Looks.for_config({ "decide" => false, "repeat" => 5 }).sequential?
    refute Looks.for_config({ "decide" => true, "repeat" => 20, "max_rounds" => 20 }).sequential?, "no round added: one look"
    refute Looks.for_config(nil).sequential?
  end
end
