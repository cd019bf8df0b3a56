# frozen_string_literal: true

require "test_helper"
require "rackbench/plan/setup"
require "rackbench/stats/slo"
require "rackbench/search/tune/entry"
require "rackbench/search/tune/racing"
require "rackbench/search/tune/noise"
require "rackbench/search/tune/ranking"
require "rackbench/search/tune/pair_words"

class TuneRacingTest < Minitest::Test
  Tune = Rackbench::Search::Tune
  R = Tune::Racing

  def entry(label, probe: nil, knee: nil, fail: nil, confirms: [])
    e = Tune::Entry.new(setup: Rackbench::Setup.parse(label), probes: [], confirms: confirms, records: [])
    e.probes << { "rps" => probe, "goodput_rps" => probe } if probe
    e.knee = { "pass" => knee, "fail" => fail } if knee
    e.records.concat(confirms)
    e
  end

  def run_at(rps, p99, mb = 100.0)
    { "rps" => rps, "goodput_rps" => rps, "requests" => 1000, "error_total" => 0,
      "latency_ms" => { "p99" => p99 }, "memory" => { "pss_total_mb" => mb } }
  end

  def counted(label, rps, requests)
    entry(label).tap { |e| e.add([{ "rps" => rps, "goodput_rps" => rps, "requests" => requests }], into: e.probes) }
  end

  def test_noise_band_from_the_measured_cv_scaled_by_each_probes_count
    assert_equal 0.05, Tune::Noise.new([]).reference, "nothing measured: the 5% floor"
    noise = Tune::Noise.new([[0.04, 100]])
    assert_in_delta 1.96 * Math.sqrt(2) * 0.04, noise.reference, 1e-9
    few = counted("puma x1:1", 10, 25)
    many = counted("puma x4:16", 200, 1600)
    assert_in_delta 1.96 * Math.sqrt(2) * 0.08, noise.between(few), 1e-9, "a quarter of the responses: twice the CV"
    assert_in_delta 1.96 * Math.sqrt(0.08**2 + 0.01**2), noise.between(few, many), 1e-9
    assert_equal 0.05, noise.between(many), "never under 5%"
    assert_equal 0.5, Tune::Noise.new([[0.9, 100]]).reference, "never over 50%"
    pooled = Tune::Noise.new([[0.03, 100], [0.05, 100], [nil, 100]])
    assert_in_delta 1.96 * Math.sqrt(2) * Math.sqrt((0.03**2 + 0.05**2) / 2), pooled.reference, 1e-9
  end

  # The arena's /random: 20% CV over 40 responses is about 5.7% over 500,
  # so 170 and 90 req/s are far apart while 12 and 9 are not.
  def test_a_noisy_mix_separates_well_counted_probes
    noise = Tune::Noise.new([[0.2, 40]])
    a = counted("puma x3:16", 170, 340)
    b = counted("puma x2:16", 90, 180)
    refute_operator 1 - 90.0 / 170, :<, noise.between(a, b)
    assert_operator 1 - 9.0 / 12, :<, noise.between(counted("puma x4:1", 12, 12), counted("puma x4:2", 9, 9))
  end

  def test_halving_keeps_the_top_half_and_ties_with_the_cut_off
    es = { "unicorn x1" => 40, "unicorn x2" => 78, "unicorn x3" => 100, "unicorn x4" => 90, "puma x1:1" => 80, "puma x2:1" => 50 }
           .map { |l, rps| entry(l, probe: rps) }
    decisions = R.halve(es, band: 0.05)
    kept = decisions.select(&:keep).map { |d| d.entry.label }
    assert_equal ["unicorn x3", "unicorn x4", "puma x1:1", "unicorn x2"], kept, "78 is within 5% of the cut-off (80): a tie"
    dropped = decisions.reject(&:keep)
    assert_equal ["puma x2:1", "unicorn x1"], dropped.map { |d| d.entry.label }
    assert_match(/rank 5\/6, 50.0 req\/s: below the cut-off \(80.0 req\/s\) by more than the 5% noise band/, dropped.first.reason)
    assert_equal R::HALVING_TEST, dropped.first.test
    assert_match(/tied with the cut-off/, decisions[3].reason)
  end

  def test_one_candidate_is_kept
    assert_equal [true], R.halve([entry("thin", probe: 10)], band: 0.05).map(&:keep)
  end

  def test_bound_skips_a_survivor_whose_throughput_cannot_reach_the_best_knee
    refute R.hopeless?(entry("unicorn x2", probe: 100), nil, band: 0.05)
    refute R.hopeless?(entry("unicorn x2", probe: 100), 110, band: 0.05), "100 x 1.05 x 1.05 = 110.25 can still reach 110"
    assert R.hopeless?(entry("unicorn x2", probe: 100), 111, band: 0.05)
  end

  def probed(label, rps, mb)
    entry(label).tap { |e| e.add([{ "rps" => rps, "goodput_rps" => rps, "memory" => { "pss_total_mb" => mb } }], into: e.probes) }
  end

  def test_dominance_a_survivor_matched_in_less_memory_is_not_searched
    small = probed("puma x2:1", 190, 40.0)
    big = probed("puma x2:16", 198, 55.0)
    faster = probed("puma x4:16", 400, 80.0)
    by = R.dominance([small, big, faster], band: 0.05)
    assert_equal({ big => small }, by, "190 is within 5% of 198, in less memory; 400 is beyond the band")
    assert_empty R.dominance([small, big], band: 0.02), "190 is more than 2% below 198: x2:16 is shown faster"
    assert_empty R.dominance([probed("puma x2:3", 190, 40.0), small], band: 0.05), "equal memory: neither dominates"
    assert_empty R.dominance([small, entry("puma x3:1", probe: 100)], band: 0.05), "no footprint measured: not judged"
    assert_match(/not searched: puma x2:1 was as fast in round 1 within the 5% noise band \(190 vs 198 req\/s\) in less memory \(40.0 < 55.0 MiB PSS\)/,
                 R.dominance_reason(big, small, 0.05))
  end

  # Ties are not transitive: b is tied with a and with c, but c is faster
  # than a beyond the band, so c stays (b, dominated, dominates nothing).
  def test_dominance_only_by_a_survivor_on_the_front
    a = probed("puma x2:1", 100, 40.0)
    b = probed("puma x2:2", 110, 45.0)
    c = probed("puma x2:3", 120, 50.0)
    assert_equal({ b => a }, R.dominance([c, b, a], band: 0.1))
  end

  def test_finalists_leader_runner_up_and_a_tied_third
    a = entry("puma x2:5", probe: 200, knee: 210, fail: 230)
    b = entry("puma x2:3", probe: 190, knee: 200, fail: 215)
    c = entry("puma x2:8", probe: 200, knee: 205, fail: 220)
    d = entry("unicorn x2", probe: 100, knee: 90, fail: 99)
    e = entry("puma x1:5", probe: 150)
    e.knee = { "pass" => nil, "fail" => 20, "fail_reason" => "p99 900 ms over 500 ms" }
    picks, decisions = R.finalists([d, b, a, c, e])
    assert_equal ["puma x2:5", "puma x2:8", "puma x2:3"], picks.map(&:label)
    by = decisions.to_h { |x| [x.entry.label, x] }
    assert_match(/knee 210 req\/s \(fails at 230\): the leader/, by["puma x2:5"].reason)
    assert_match(/below the leader's bracket, not among the best 3/, by["unicorn x2"].reason)
    assert_equal R::KNEE_TEST, by["unicorn x2"].test
    assert_match(/no rate met the SLO \(p99 900 ms over 500 ms\)/, by["puma x1:5"].reason)
  end

  def test_a_time_skipped_setup_stands_in_as_runner_up
    a = entry("puma x2:5", probe: 200, knee: 210, fail: 230)
    spare = entry("puma x2:3", probe: 190)
    picks, decisions = R.finalists([a], spare: [spare])
    assert_equal ["puma x2:5", "puma x2:3"], picks.map(&:label)
    assert_match(/runner-up by its probe/, decisions.last.reason)
  end

  def test_the_leader_takes_the_best_setup_it_matched_in_less_memory_to_round_three
    a = entry("puma x1:10", probe: 200, knee: 180, fail: 195)
    tied = entry("puma x2:5", probe: 201)
    other = entry("puma x2:10", probe: 199)
    picks, decisions = R.finalists([a], dominated: { tied => a, other => entry("unicorn x4") })
    assert_equal ["puma x1:10", "puma x2:5"], picks.map(&:label), "only those the leader itself matched"
    assert_match(/\Afinalist without a knee search: as fast as puma x1:10 in round 1 \(201 vs 200 req\/s\)/, decisions.last.reason)
    assert decisions.last.keep
  end

  # The footprints that made the match are the ones said, not the leader's
  # footprint after its knee search moved it (CI walk: "48.9 > 51.9 MiB").
  def test_the_challenger_is_worded_with_the_footprints_round_two_compared
    a = entry("puma x2:5", probe: 296, knee: 208, fail: 230)
    tied = entry("puma x3:5", probe: 295)
    _, decisions = R.finalists([a], dominated: { tied => a }, dominated_mb: { tied => [52.4, 48.9] })
    assert_match(/in more memory then \(52\.4 > 48\.9 MiB PSS\); round 3 decides the tie\z/, decisions.last.reason)
  end

  def rounds(*runs)
    runs.each_with_index.map { |r, i| r.merge("round" => i + 1) }
  end

  def ranking(*entries, slo: Rackbench::Stats::Slo.new(p99_ms: 300))
    Tune::Ranking.new(entries, slo: slo, margin: 0.05, endpoint: "/pause/0.05", rate: 410)
  end

  # Paired by round: the rounds drift together (410, 395, 420), x2:5's p99 is
  # a third higher in each, so the pair is decided though the values overlap.
  def test_ranking_decides_on_paired_rounds_and_a_lower_p99_wins_at_equal_throughput
    x3 = entry("puma x2:3", knee: 410, confirms: rounds(run_at(410, 150), run_at(395, 120), run_at(420, 180)))
    x5 = entry("puma x2:5", knee: 420, confirms: rounds(run_at(409, 200), run_at(396, 160), run_at(421, 240)))
    r = ranking(x5, x3)
    assert_equal ["puma x2:3", "puma x2:5"], r.order.map(&:label)
    pair = r.pair(x3, x5)
    assert_equal [x3, :p99, true], [pair.better, pair.basis, pair.settled?]
    assert_equal %w[equivalent slower equivalent], r.entries.map(&:outcome)
    p99 = r.entries.find { |e| e.metric == "latency_ms.p99" }.decision
    assert_operator p99.ci_low, :>, 1.05
    assert_equal Rackbench::Stats::Decision::PAIRED, p99.method
    text = Tune::PairWords.sentence(pair, r, runner_up: x5)
    assert_match(%r{\Arunner-up puma x2:5 against puma x2:3 \(3 paired rounds at 410 req/s\): req/s equivalent within \+-5% \(95% CI .*\); p99 slower by 3\d% \(95% CI \d+-\d+%\); PSS equivalent within \+-5% \(95% CI -1\.8% to \+1\.8%\): puma x2:3 wins: decided lower p99 at equivalent throughput\z}, text)
  end

  def test_ranking_holding_the_slo_comes_first_then_fewer_processes_on_a_full_tie
    holds = entry("unicorn x4", confirms: rounds(*[run_at(300, 200)] * 3))
    breaks = entry("puma x2:5", confirms: rounds(run_at(300, 400), run_at(300, 380), run_at(300, 100)))
    r = ranking(breaks, holds)
    assert_equal ["unicorn x4", "puma x2:5"], r.order.map(&:label)
    assert_equal :slo, r.pair(holds, breaks).basis
    assert_match(/unicorn x4 wins: it held the SLO in 3 of 3 rounds, puma x2:5 in 1 of 3/, Tune::PairWords.sentence(r.pair(holds, breaks), r))
    one = entry("puma x1:8", confirms: rounds(run_at(300, 200, 60.0), run_at(301, 201, 60.0), run_at(299, 199, 60.0)))
    three = entry("puma x2:4", confirms: rounds(run_at(300, 200, 60.0), run_at(301, 201, 60.0), run_at(299, 199, 60.0)))
    r = ranking(three, one)
    assert_equal ["puma x1:8", "puma x2:4"], r.order.map(&:label), "equivalent on all three: 1 process beats 3"
    assert_equal [:processes, true], [r.pair(one, three).basis, r.pair(one, three).settled?]
  end

  # A faster finalist wins over a smaller one: throughput comes first.
  def test_ranking_a_decided_faster_finalist_beats_a_smaller_one
    small = entry("puma x1:5", confirms: rounds(run_at(250, 250, 30.0), run_at(240, 260, 30.0), run_at(255, 255, 30.0)))
    fast = entry("puma x2:5", confirms: rounds(run_at(300, 250, 50.0), run_at(290, 260, 50.0), run_at(306, 255, 50.0)))
    r = ranking(small, fast)
    assert_equal ["puma x2:5", "puma x1:5"], r.order.map(&:label)
    assert_equal :rps, r.pair(small, fast).basis
  end

  # Three finalists (issue 34: "puma x1:1 wins" was printed under a
  # recommended puma x2:3): only the ranking's first wins.
  def test_only_the_recommended_finalist_wins
    fast = entry("puma x2:3", confirms: rounds(run_at(400, 200, 50.0), run_at(390, 210, 50.0), run_at(405, 205, 50.0)))
    mid = entry("puma x2:1", confirms: rounds(run_at(300, 250, 40.0), run_at(290, 260, 40.0), run_at(306, 255, 40.0)))
    slow = entry("puma x1:1", confirms: rounds(run_at(200, 250, 30.0), run_at(190, 260, 30.0), run_at(204, 255, 30.0)))
    r = ranking(slow, mid, fast)
    assert_equal ["puma x2:3", "puma x2:1", "puma x1:1"], r.order.map(&:label)
    assert_match(/: puma x2:3 wins: decided faster/, Tune::PairWords.sentence(r.pair(fast, mid), r))
    others = Tune::PairWords.sentence(r.pair(mid, slow), r)
    assert_match(/: puma x2:1 is ahead of puma x1:1 in this pair: decided faster/, others)
    refute_match(/wins/, others)
  end

  def test_confirmation_shortens_reasons
    slo = Rackbench::Stats::Slo.new(p99_ms: 300)
    bad = run_at(170, 700).merge("valid" => false, "invalid_reason" => "achieved 171.4 req/s, 77.9% of the 220 req/s target " \
                                                                           "(below 99%): the server did not answer every planned request")
    c = R.confirmation([bad, bad, run_at(220, 100)], slo)
    refute c["holds"]
    assert_equal ["invalid trial: achieved 171.4 req/s, 77.9% of the 220 req/s target"], c["failures"]
  end

  # Issue 46, item 9: round 3 said "confirmed" on two trials that were not
  # valid. A trial too short for its latency holds nothing.
  def test_a_trial_not_valid_does_not_hold_the_slo
    slo = Rackbench::Stats::Slo.new(p99_ms: 300)
    short = run_at(20, 100).merge("concurrency" => 16, "run" => { "duration_s" => 2.0 })
    c = R.confirmation([short, short, run_at(220, 100)], slo)
    refute c["holds"], "two of three trials not valid"
    assert_match(/\Anot valid: trial too short for its latency/, c["failures"].first)
    ok = run_at(220, 100).merge("concurrency" => 16, "run" => { "duration_s" => 2.0 })
    assert R.confirmation([ok, ok, short], slo)["holds"], "valid trials still hold it"
  end
end
