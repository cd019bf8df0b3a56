# frozen_string_literal: true

require "test_helper"
require "json"
require "support/decision_invariant"

# Decisions between setups on real servers: a difference fixed by the
# physics (/pause/0.05 at c=4: Puma's 10 threads serve all 4 connections,
# 80 req/s, Unicorn's 2 workers 40, a ratio of 0.5) is decided with an
# interval holding it, and one setup under two names (an A/A pair) is never
# called faster or slower. (At c=16 Unicorn's time in the system is 0.4 s, so
# a 1 s trial is not valid for it (Stats::Validity) and nothing is decided.)
class DecideTest < Minitest::Test
  include DecisionInvariant

  def trials(dir)
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  def report_json(dir)
    status, out, err = run_cli("report", dir, "--format", "json")
    assert_equal 0, status, err
    JSON.parse(out)
  end

  def test_decide_adds_rounds_until_a_physical_difference_is_decided
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-s", "puma x1:10", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "4", "-d", "2",
                               "--warmup", "0.5", "--decide", "--max-rounds", "5", "-o", dir)
    assert_equal 0, status, err
    rounds = trials(dir).map { |t| t["repetition"] }.uniq.sort
    assert_equal 3, rounds.size, "--decide's first look is at round 3, and a 2x difference is decided there: #{err}"
    assert_equal rounds.size * 2, trials(dir).size, "every round measures both setups once"
    assert_match(/--decide: every neighbouring pair is decided after #{rounds.size} rounds/, err)
    decisions = report_json(dir)["decisions"]
    decisions.each { |d| assert_words_match_interval(d) }
    rps = decisions.find { |d| d["metric"] == "rps" }
    assert_equal ["puma x1:10", "unicorn x2", "slower"], [rps["a"], rps["b"], rps["outcome"]]
    # Physically 40/80 = 0.5; Puma's 4 connections lose a little to each
    # request's turnaround (76-78.4 req/s measured, 0.504-0.517), Unicorn's
    # none. The band allows Puma down to 72 req/s and Unicorn down to 37.6.
    assert_operator rps["ci_low"], :<=, 0.55, rps.inspect
    assert_operator rps["ci_high"], :>=, 0.47, "the interval is near the physical ratio 40/80"
    assert_equal [3, 1], rps.values_at("look", "family_size")
    assert_operator rps["confidence"], :>, 0.95, "the first look spends a share of the rate: a wider interval"
    assert_operator rps["ci_low"], :<, rps["ci_low_unadjusted"]
    # A change under 50% is said in percent (rounded: "50%" is 49.5-49.9),
    # from 50% on as the ratio B/A
    # (DecisionText#phrase); 0.5 sits on that edge, so either form is right:
    # 45-50% (a ratio of 0.505-0.55) or 0.47x-0.5x.
    assert_match(%r{/pause/0.05 c=4  unicorn x2 against puma x1:10 \(3 rounds\): req/s slower(?: by (?:4[5-9]|50)% \(95% CI \d+-\d+%\)|: B/A 0\.(?:4[7-9]|50?)\d*x \(95% CI 0\.\d+x-0\.\d+x\))}, out)
    assert_match(/a look after every round from 3 to 5: Lan & DeMets's Pocock-type alpha spending/, out)
  end

  def test_one_setup_under_two_names_is_never_called_faster_or_slower
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-s", "puma x1:4 #a", "-s", "puma x1:4 #b", "-e", "/pause/0.05", "-c", "4", "-d", "2",
                               "--warmup", "0.5", "-r", "4", "--margin", "10", "-o", dir)
    assert_equal 0, status, err
    decisions = report_json(dir)["decisions"]
    decisions.each { |d| assert_words_match_interval(d) }
    assert_equal 3, decisions.size, "req/s, p99 and PSS for the one pair"
    decisions.each do |d|
      refute_includes %w[faster slower larger smaller], d["outcome"], d.inspect
      assert_equal 0.1, d["margin"]
    end
    # /pause/0.05 at c=4 on 4 threads is time-bound: 80 req/s whichever name.
    # 2 s trials (a closed loop's end loses up to 4 of ~160 requests) and 4
    # rounds: 3 rounds of 1 s left an A/A interval of 0.92-1.11 in CI, undecided.
    assert_equal "equivalent", decisions.find { |d| d["metric"] == "rps" }["outcome"], decisions.inspect
    refute_match(/same within noise/, out)
  end
end
