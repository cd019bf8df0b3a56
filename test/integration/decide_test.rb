# frozen_string_literal: true

require "test_helper"
require "json"

# Decisions between setups on real servers: a difference fixed by the
# physics (/pause/0.05 at c=16: Puma's 10 threads serve 200 req/s, Unicorn's
# 2 workers 40, a ratio of 0.2) is decided with an interval holding it, and
# one setup under two names (an A/A pair) is never called faster or slower.
class DecideTest < Minitest::Test
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
    status, out, err = run_cli("run", "-s", "puma x1:10", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "16", "-d", "1",
                               "--warmup", "0.5", "--decide", "--max-rounds", "4", "-o", dir)
    assert_equal 0, status, err
    rounds = trials(dir).map { |t| t["repetition"] }.uniq.sort
    assert_operator rounds.size, :>=, 2, "a decision needs 2 rounds"
    assert_operator rounds.size, :<=, 4
    assert_equal rounds.size * 2, trials(dir).size, "every round measures both setups once"
    assert_match(/--decide: every neighbouring pair is decided after #{rounds.size} rounds/, err)
    rps = report_json(dir)["decisions"].find { |d| d["metric"] == "rps" }
    assert_equal ["puma x1:10", "unicorn x2", "slower"], [rps["a"], rps["b"], rps["outcome"]]
    assert_operator rps["ci_low"], :<=, 0.21, rps.inspect
    assert_operator rps["ci_high"], :>=, 0.19, "the interval holds the physical ratio 40/200"
    assert_match(%r{/pause/0.05 c=16  unicorn x2 against puma x1:10 \(#{rounds.size} rounds\): req/s slower: B/A 0\.\d+x}, out)
  end

  def test_one_setup_under_two_names_is_never_called_faster_or_slower
    dir = File.join(tmpdir, "run")
    status, out, err = run_cli("run", "-s", "puma x1:4 #a", "-s", "puma x1:4 #b", "-e", "/pause/0.05", "-c", "4", "-d", "2",
                               "--warmup", "0.5", "-r", "4", "--margin", "10", "-o", dir)
    assert_equal 0, status, err
    decisions = report_json(dir)["decisions"]
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
