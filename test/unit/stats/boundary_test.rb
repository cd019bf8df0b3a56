# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/boundary"
require "rackbench/stats/looks"

# The exact group-sequential boundary: against published values and
# against a simulation of the Gaussian random walk it is computed for
# (R's values from another method: reference_test.rb).
class BoundaryTest < Minitest::Test
  Boundary = Rackbench::Stats::Boundary

  def z(alpha_one_side)
    lo = 0.0
    hi = 10.0
    60.times do
      mid = (lo + hi) / 2
      0.5 * Math.erfc(mid / Math.sqrt(2)) > alpha_one_side ? lo = mid : hi = mid
    end
    lo
  end

  def pocock_increments(looks, rate)
    g = ->(t) { Math.log(1 + (Math::E - 1) * t) }
    (1..looks).map { |k| rate * (g.call(k.to_f / looks) - g.call((k - 1).to_f / looks)) }
  end

  # Lan & DeMets's Pocock-type spending, five equally spaced looks, 5%
  # two-sided: 2.438, 2.427, 2.410, 2.397, 2.386 (as tabulated for the
  # Pocock-type function, e.g. by the ldbounds and gsDesign packages).
  def test_five_equal_looks_match_the_tabulated_pocock_type_boundary
    nominal = Boundary.nominal([1, 2, 3, 4, 5], pocock_increments(5, 0.05))
    got = nominal.values.map { |a| z(a).round(3) }
    [2.438, 2.427, 2.410, 2.397, 2.386].zip(got).each { |want, have| assert_in_delta want, have, 0.002 }
  end

  # One look spends the whole rate: the plain two-sided quantile.
  def test_one_look_is_the_plain_quantile
    assert_in_delta 0.025, Boundary.nominal([7], [0.05])[7], 1e-9
  end

  # The random walk crosses the boundary, at any of 18 looks, as often as
  # the rate says (20,000 walks: 5% +- 0.5%), and each look's level is at
  # least its share alone (the union bound's).
  def test_a_simulated_walk_crosses_at_the_stated_rate
    looks = Rackbench::Stats::Looks.sequential(first: 3, max: 20)
    ns = (3..20).to_a
    nominal = Boundary.nominal(ns, ns.map { |n| 0.05 * looks.share(n) })
    ns.each { |n| assert_operator nominal[n], :>=, 0.025 * looks.share(n) * 0.999, "look #{n}" }
    c = nominal.transform_values { |a| z(a) }
    rng = Random.new(42)
    crossed = 20_000.times.count do
      s = 0.0
      (1..20).any? do |n|
        s += Math.sqrt(-2 * Math.log(1 - rng.rand)) * Math.cos(2 * Math::PI * rng.rand)
        n >= 3 && (s / Math.sqrt(n)).abs >= c[n]
      end
    end
    assert_in_delta 0.05, crossed / 20_000.0, 0.005
  end

  def test_too_many_looks_are_not_integrated
    assert_nil Boundary.nominal((1..(Boundary::MAX_LOOKS + 1)).to_a, Array.new(Boundary::MAX_LOOKS + 1, 0.001))
  end
end
