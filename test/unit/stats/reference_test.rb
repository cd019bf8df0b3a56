# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/stats/decision"

# rackbench's intervals against an independent implementation: R's
# stats::t.test (paired and Welch) and stats::qt, run offline by
# test/fixtures/stats/reference.R, at the confidence each design asks for
# (a family of m: 1 - 0.05 / m; a --decide look: its alpha-spending share).
class StatsReferenceTest < Minitest::Test
  Stats = Rackbench::Stats
  REFERENCE = JSON.parse(File.read(File.expand_path("../../fixtures/stats/reference.json", __dir__)))

  def budget(c)
    looks = c["max"] ? Stats::Looks.sequential(first: c["first"], max: c["max"]) : Stats::Looks.fixed
    Stats::ErrorBudget.new(looks: looks, family: c["family"])
  end

  def test_the_source_is_named
    assert_match(/\AR \d+\.\d+\.\d+: stats::t.test, stats::qt and stats::aov/, REFERENCE["source"])
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

  def test_t_quantiles_match_r
    REFERENCE["quantiles"].each do |q|
      assert_in_delta q["t"], Stats::StudentT.quantile(q["p"], q["df"]), 1e-6, q.inspect
    end
  end
end
