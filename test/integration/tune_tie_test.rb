# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/clock"
require "rackbench/plan/config"
require "rackbench/plan"
require "rackbench/load"
require "rackbench/runner"
require "rackbench/cli/measuring"
require "rackbench/stats/slo"
require "rackbench/search/tune"
require "rackbench/search/tune/lab"
require "rackbench/store/tune_journal"
require "rackbench/report/tune_text"

# Tune's round 3 on real servers, on a tie built by construction: puma x2:5
# (a master and two workers of 5 threads) and puma x1:10 (one process of 10
# threads) both serve 10 requests of /pause/0.05 at once, 200 req/s at most.
# At 100 req/s offered (open loop, half of that) both keep the rate, so req/s
# is the same by construction; x1:10 holds one process's memory against
# three. x2:5 comes first as the knee search's leader, so the rule, not the
# order, has to pick x1:10: equivalent on throughput, the smaller footprint
# wins, and the recommendation says so with the intervals.
#
# What tune's rounds 0-2 would do to reach these two finalists is covered on
# fake measurements (TuneSearchTest#test_a_tie_goes_to_the_smaller_footprint_
# and_says_why_with_the_intervals): on tune's own space the one with the most
# threads in all wins outright. Here: 6 fresh boots, 3 s of load each.
class TuneTieIntegrationTest < Minitest::Test
  Tune = Rackbench::Search::Tune
  ENDPOINT = "/pause/0.05"
  RATE = 100.0
  # The tie is within 10%: p99 is not the same by construction (one process
  # of 10 threads against two of 5; CI read x1:10's p99 3.4-13% above), and
  # at a 5% margin more rounds could decide it, and p99, not the footprint,
  # would pick the winner.
  MARGIN = 0.10

  def entry(label)
    Tune::Entry.for(Tune::Candidates::Candidate.new(setup: Rackbench::Setup.parse(label), estimate_mb: nil))
  end

  # Round 3 and the recommendation, written to the run directory as tune writes them.
  def confirm(dir, finalists, slo)
    config = Rackbench::Config.build(endpoints: [ENDPOINT], warmup: 1, cooldown: 0, quiet: true)
    plan = Rackbench::Plan.new(config)
    frame = Rackbench::CLI::Measuring.new(command: "tune", argv: [], err: StringIO.new, quiet: true)
    frame.call(out: dir, meta: { "plan" => plan.to_h, "config" => Rackbench::Config.dump(config) }) do |store, listener|
      runner = Rackbench::Runner.new(plan: plan, store: store, engine: Rackbench::Load.engine("wrk"), listener: listener)
      runner.with_context do |ctx|
        deadline = Tune::Deadline.new(50)
        lab = Tune::Lab.new(context: ctx, endpoint: ENDPOINT, slo: slo, deadline: deadline)
        journal = Rackbench::Store::TuneJournal.new(store)
        state = Tune::State.new(lab: lab, journal: journal, deadline: deadline, slo: slo, endpoint: ENDPOINT,
                                margin: MARGIN, seed: 22, say: ->(_line) {})
        result = Tune::ConfirmRound.new(state).call(finalists)
        rec = Tune::Recommendation.new(entries: finalists, confirmed: result, slo: slo, endpoint: ENDPOINT, budget_mb: 512).to_h
        # What Tune#finish adds around it.
        rec = rec.merge("config_files" => [], "start_command" => "bundle exec puma -C config/puma.rb", "time_budget_s" => 50,
                        "elapsed_s" => deadline.elapsed.round(1), "method" => Tune::METHOD)
        journal.recommend(rec)
        rec
      end
    end
  end

  def test_a_tie_recommends_the_smaller_footprint_and_says_why_with_the_intervals
    dir = File.join(tmpdir, "tie")
    slo = Rackbench::Stats::Slo.new(p99_ms: 500)
    leader = entry("puma x2:5").tap { |e| e.knee = { "pass" => RATE } }
    started = Rackbench::Clock.now
    confirm(dir, [leader, entry("puma x1:10")], slo)
    elapsed = Rackbench::Clock.now - started
    assert_operator elapsed, :<, 60, "a 50 s budget, plus the last boot and stop"

    rec = JSON.parse(File.read(File.join(dir, "recommendation.json")))
    assert_equal "puma x1:10", rec["setup"], rec["reason"]
    assert_equal "confirmed", rec["evidence"]
    puts "\n#{rec['reason']}" if ENV["VERBOSE"]
    assert_equal RATE, rec.dig("confirm", "rate")
    assert_operator rec.dig("confirm", "rounds"), :>=, 3

    decision = rec["decision"]
    assert_equal ["puma x1:10", "puma x2:5", "puma x1:10"], decision.values_at("a", "b", "winner"), "B against A, A the winner"
    # The footprint decides when p99 does not. Two processes of 5 threads
    # against one of 10 can also differ in p99 beyond the margin in 3 rounds
    # (a run here read x2:5's p99 38% higher, 95% CI 14-67%): then p99 picks
    # the same winner, on its own interval, and the tie path is not taken.
    p99_decided = decision["basis"] == "p99"
    assert_equal(p99_decided ? "p99" : "pss", decision["basis"], decision["text"])
    by = rec["decisions"].to_h { |d| [d["metric"], d] }
    assert_equal "equivalent", by.dig("rps", "outcome"), by["rps"].inspect
    pss = by["memory.pss_total_mb"]
    assert_equal "larger", pss["outcome"]
    assert_operator pss["ci_low"], :>, 1 + MARGIN, "three processes against one: beyond the margin"
    %w[rps latency_ms.p99 memory.pss_total_mb].each do |m|
      assert_equal ["puma x1:10", "puma x2:5", MARGIN, Rackbench::Stats::Decision::PAIRED], by[m].values_at("a", "b", "margin", "method")
      assert_operator by[m]["ci_low"], :<=, by[m]["ratio"]
      assert_operator by[m]["ratio"], :<=, by[m]["ci_high"]
      assert_equal rec.dig("confirm", "rounds"), by[m]["rounds"]
    end

    # The closing sentence: every metric, its direction and its interval, and why
    # (a change of 50% or more is said as the ratio B/A: DecisionText#phrase;
    # an interval wider than half-to-double as "too wide to read").
    if p99_decided
      assert_match(/p99 slower(?: by \d+% \(95% CI \d+-\d+%\)|: B\/A [\d.]+x \(95% CI [\d.]+x-[\d.]+x\)).*: puma x1:10 wins: decided lower p99 at equivalent throughput/,
                   rec["reason"])
    else
      assert_match(%r{; runner-up puma x2:5 against puma x1:10 \(\d+ paired rounds at 100 req/s\): req/s equivalent within \+-10% \(95% CI [-+]\d[^)]*% to [-+]\d[^)]*%\); p99 .*\((?:95% CI[ ;]|too wide to read: ).*\); PSS larger(?: by \d+% \(95% CI \d+-\d+%\)|: B/A \d\.\d+x \(95% CI [\d.]+x-[\d.]+x\)): puma x1:10 wins: (equivalent on req/s and p99|req/s equivalent, p99 undecided), so the smaller footprint},
                   rec["reason"])
    end
    refute_match(/significant|within noise/, rec["reason"])

    rows = File.readlines(File.join(dir, "tune.jsonl")).map { |l| JSON.parse(l) }
    rounds = rows.select { |r| r["type"] == "confirm" }
    assert_equal (1..rounds.size).to_a, rounds.map { |r| r["n"] }
    assert(rounds.all? { |r| r["order"].sort == ["puma x1:10", "puma x2:5"] }, "each round: every finalist once")
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal 2 * rounds.size, trials.count { |t| t["loop"] == "open" && t["rate"] == RATE }
    boots = File.readlines(File.join(dir, "setups.jsonl")).map { |l| JSON.parse(l) }
    assert_equal 2 * rounds.size, boots.size, "a fresh boot per finalist and round"

    io = StringIO.new
    Rackbench::Report::TuneText.new(dir, io: io).render
    assert_match(/^Recommended: puma x1:10 — 100 req\/s within p99 500 ms/, io.string)
    assert_match(/^  runner-up: puma x2:5; decided by the PSS footprint, .* paired rounds \(paired rounds: Student's t/, io.string)
  end
end
