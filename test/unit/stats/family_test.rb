# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/family"
require "rackbench/stats/looks"

# Issue 45, item 2: one family builder. Every candidate that can be decided
# counts in its family, decided or not; each is decided at rate / m.
class FamilyTest < Minitest::Test
  Family = Rackbench::Stats::Family
  C = Struct.new(:name, :xs, :ys, :paired, keyword_init: true)

  def candidate(name, ratio, n: 5, paired: true)
    xs = Array.new(n) { |i| 100.0 + i }
    C.new(name: name, xs: xs, ys: xs.map { |x| x * ratio * (1 + (0.002 * (-1)**xs.index(x))) }, paired: paired)
  end

  def decided(candidates, **opts)
    out = {}
    sizes = Family.decide(candidates, margin: 0.05, looks: Rackbench::Stats::Looks.fixed, **opts) { |c, d| out[c.name] = d }
    [out, sizes]
  end

  def test_only_what_can_be_decided_counts
    short = C.new(name: "one round", xs: [100.0], ys: [90.0], paired: true)
    zero = C.new(name: "a zero", xs: [100.0, 101.0], ys: [0.0, 90.0], paired: true)
    out, sizes = decided([candidate("a", 0.8), candidate("b", 1.0), short, zero])
    assert_equal({ all: 2 }, sizes)
    assert_equal %w[a b], out.keys
    assert_equal [2, 2], out.values.map { |d| d.to_h["family_size"] }
    assert_equal [:lower, :equivalent], out.values.map(&:outcome)
  end

  def test_families_are_counted_apart_and_a_caller_may_count_more
    list = [candidate("a", 0.8), candidate("b", 0.8), candidate("c", 0.8)]
    out, sizes = decided(list, family_of: ->(c) { c.name == "c" ? "secondary" : "primary" })
    assert_equal({ "primary" => 2, "secondary" => 1 }, sizes)
    assert_equal({ "a" => 2, "b" => 2, "c" => 1 }, out.transform_values { |d| d.to_h["family_size"] })
    _, sizes = decided(list, size: { all: 10 })
    assert_equal({ all: 10 }, sizes, "a gate counts its missing cells too")
  end

  # A wider family is a wider interval: the same data at m = 1 and m = 10.
  def test_the_share_widens_the_interval
    one, = decided([candidate("a", 0.9)])
    ten, = decided([candidate("a", 0.9)], size: { all: 10 })
    assert_operator ten["a"].ci_low, :<, one["a"].ci_low
    assert_in_delta one["a"].ratio, ten["a"].ratio, 1e-12
  end

  def test_round_values_pair_by_round
    trials = [{ "repetition" => 2, "rps" => 20.0 }, { "repetition" => 1, "rps" => 10.0 }, { "repetition" => 3 }]
    a = Family.round_values(trials) { |t| t["rps"] }
    assert_equal({ 2 => 20.0, 1 => 10.0 }, a)
    assert_equal [[10.0, 20.0], [11.0, 21.0]], Family.paired(a, { 1 => 11.0, 2 => 21.0, 4 => 40.0 })
    assert_equal({ 7 => 1.0 }, Family.round_values([{ "round" => 7, "v" => 1.0 }], key: "round") { |t| t["v"] })
  end
end
