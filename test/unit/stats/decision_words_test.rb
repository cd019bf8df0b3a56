# frozen_string_literal: true

require "test_helper"
require "support/decision_invariant"
require "rackbench/stats/decisions"

# Item 3 of issue 32 as a property: over many runs of random rounds (both
# loops of design, families of 1 to 6), every stored decision's words match
# the interval stored with it.
class DecisionWordsTest < Minitest::Test
  include DecisionInvariant
  Stats = Rackbench::Stats

  def trials(rng, setups, rounds)
    (1..rounds).flat_map do |r|
      drift = Math.exp(0.1 * (rng.rand - 0.5))
      setups.each_with_index.map do |s, i|
        rps = 1000.0 * drift * (1 + 0.04 * i) * Math.exp(0.06 * (rng.rand - 0.5))
        { "endpoint" => "/e", "setup" => s, "concurrency" => 8, "repetition" => r, "loop" => "closed", "rps" => rps,
          "duration_s" => 10.0, "latency_ms" => { "mean" => 8000.0 / rps, "p99" => 2e4 / rps * (1 + 0.3 * rng.rand) } }
      end
    end
  end

  def test_every_outcome_matches_its_interval
    rng = Random.new(32)
    seen = Hash.new(0)
    300.times do |i|
      setups = %w[a b c d e f g].first(2 + (i % 6))
      rounds = 3 + (i % 9)
      looks = i.even? ? Stats::Looks.fixed : Stats::Looks.sequential(first: 1, max: 12)
      Stats::Decisions.for_run(trials(rng, setups, rounds), looks: looks).to_a.each do |d|
        assert_words_match_interval(d)
        seen[d["outcome"].sub(/\Adirection_.*/, "direction")] += 1
      end
    end
    # faster is rare by construction: A is the setup with the higher median.
    %w[equivalent undecided direction slower].each { |o| assert_operator seen[o], :>, 0, "no #{o} among #{seen}" }
  end

  # The check itself fails on words that do not match (a decision called
  # equivalent whose interval reaches past the margin).
  def test_the_check_fails_on_words_against_the_interval
    bad = { "outcome" => "equivalent", "ci_low" => 0.9, "ci_high" => 1.02, "margin" => 0.05 }
    assert_raises(Minitest::Assertion) { assert_words_match_interval(bad) }
  end
end
