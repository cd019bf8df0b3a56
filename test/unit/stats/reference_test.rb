# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/decision"

# rackbench's intervals against an independent implementation: R's
# stats::t.test (paired and Welch) and stats::qt, run offline by
# test/fixtures/stats/reference.R, at the confidence each design asks for
# (a family of m: 1 - 0.05 / m; a --decide look: the level of the exact
# group-sequential boundary of its alpha-spending share, from mvtnorm).
class StatsReferenceTest < Minitest::Test
  Stats = Rackbench::Stats
  REFERENCE = JSON.parse(File.read(File.expand_path("../../fixtures/stats/reference.json", __dir__)))

  def budget(c)
    looks = c["max"] ? Stats::Looks.sequential(first: c["first"], max: c["max"]) : Stats::Looks.fixed
    Stats::ErrorBudget.new(looks: looks, family: c["family"])
  end

  def test_the_source_is_named
    assert_match(/\AR \d+\.\d+\.\d+: stats::t.test, stats::qt, stats::aov and mvtnorm::pmvnorm/, REFERENCE["source"])
  end

  def test_intervals_match_r_at_each_designs_confidence
    REFERENCE["intervals"].each do |c|
      b = budget(c)
      d = Stats::Decision.of(c["a"], c["b"], paired: c["paired"], budget: b, look: c["look"])
      refute_nil d, c["name"]
      assert_in_delta c["confidence"], d.confidence, 1e-9, "#{c['name']}: the design's confidence"
      assert_in_delta c["ci_low"], d.ci_low, 1e-5, "#{c['name']}: low"
      assert_in_delta c["ci_high"], d.ci_high, 1e-5, "#{c['name']}: high"
    end
  end

  # The exact group-sequential boundary (Stats::Boundary, by numerical
  # integration; boundary: :exact, measured by bench/decide_speed.rb, not
  # the default) against R's, from the looks' joint normal law by
  # mvtnorm::pmvnorm. pmvnorm is quasi-Monte Carlo: a look's crossing is a
  # difference of two close probabilities of up to 18 dimensions, so R's own
  # error grows with the look (its later levels scatter +-10% around a
  # smooth curve). The first four looks of each design are held to 1%, the
  # rest to 15% (a wrong boundary is off by far more: the union bound's
  # last look is 5 times smaller).
  def test_boundaries_match_r
    REFERENCE["boundaries"].each do |c|
      looks = Stats::Looks.sequential(first: c["first"], max: c["max"], boundary: :exact)
      budget = Stats::ErrorBudget.new(looks: looks, family: c["family"])
      c["alpha_two_sided"].each_with_index do |r, i|
        look = c["first"] + i
        assert_in_delta r, 2 * budget.alpha(look), (i < 4 ? 0.01 : 0.15) * r, "looks #{c['first']}..#{c['max']}, family #{c['family']}, look #{look}"
      end
    end
  end

  def test_t_quantiles_match_r
    REFERENCE["quantiles"].each do |q|
      assert_in_delta q["t"], Stats::StudentT.quantile(q["p"], q["df"]), 1e-6, q.inspect
    end
  end
end
