# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/setup"
require "rackbench/stats/slo"
require "rackbench/search/tune/entry"
require "rackbench/search/tune/ranking"

# Round 3's ranking of finalists from their paired rounds.
class TuneRankingTest < Minitest::Test
  Tune = Rackbench::Search::Tune

  def confirm(round, rps, client: false)
    { "round" => round, "rps" => rps, "goodput_rps" => rps, "requests" => (rps * 3).round, "error_total" => 0,
      "latency_ms" => { "p99" => 80.0 }, "memory" => { "pss_total_mb" => 60.0 }, "loop" => "open",
      **(client ? { "valid" => false, "behind" => "client", "invalid_reason" => "the load generator fell behind" } : { "valid" => true }) }
  end

  def entry(label, confirms)
    Tune::Entry.new(setup: Rackbench::Setup.parse(label), probes: [], confirms: confirms, records: [])
  end

  # Issue 34: a round the load generator could not hold measured the client,
  # not the finalist. It is a miss of the SLO (both finalists here miss
  # rounds 1 and 2 so, and hold 3 of 5) and gives no value to the paired
  # decisions: they rest on the 3 rounds both finalists were measured in.
  def test_rounds_the_load_generator_could_not_hold_are_misses_and_no_evidence
    a = entry("puma x2:5", [confirm(1, 40.0, client: true), confirm(2, 45.0, client: true),
                            confirm(3, 100.0), confirm(4, 101.0), confirm(5, 99.0)])
    b = entry("unicorn x4", [confirm(1, 90.0, client: true), confirm(2, 95.0, client: true),
                             confirm(3, 100.5), confirm(4, 100.0), confirm(5, 99.5)])
    ranking = Tune::Ranking.new([a, b], slo: Rackbench::Stats::Slo.new(p99_ms: 300), margin: 0.05, endpoint: "/x", rate: 100.0)
    pair = ranking.pair(a, b)
    assert_equal 3, pair.rounds, "the decisions rest on rounds 3-5 only"
    assert_equal [3], pair.entries.values.map { |e| e.decision.rounds }.uniq, "req/s, p99 and PSS alike"
    assert_equal [true, true], [ranking.holds?(a), ranking.holds?(b)]
    c = Tune::Racing.confirmation(a.confirms, ranking.slo)
    assert_equal [3, 2, 5], c.values_at("passes", "client", "n")
  end
end
