# frozen_string_literal: true

# Does `rackbench tune` find what an exhaustive grid finds, in a fraction of
# its time? Both search the same space back to back on this machine.
#
#   bundle exec ruby -Ilib bench/tune_vs_grid.rb [random|cpu|io] [SLO] [--small]
#   e.g. ruby -Ilib bench/tune_vs_grid.rb io 500ms
#
#   random  /random        the App Server Arena's mixed workload (default; SLO 3s,
#                          since a fifth of its requests sleep 1 s)
#   cpu     /fibonacci/20  CPU-bound (SLO 500ms)
#   io      /pause/0.05    IO-bound (SLO 500ms)
#
# The space: tune's own, as `rackbench tune --servers puma,unicorn
# --memory-budget 2GiB` builds it on this machine (workers up to 2 x cores,
# Puma threads 1, 2, 3, 5, 8, 16: 28 setups on 2 cores); the grid reads
# tune's candidate list from tune.jsonl, so both search exactly the same
# setups. --small: the 8-setup space (at most 2 workers, Puma threads 1, 3, 5)
# for a quick look; successive halving saves little on so few setups.
#
# tune:  the command itself, with its default time budget.
# grid:  every setup gets the evidence tune gives its winner: the open-loop
#        knee search of tune's round 2 (Tune::Lab#knee: warm-up, at most 5
#        levels from 80% to 105% of the saturated throughput), then a
#        confirmation at that knee (ConfirmRound::ROUNDS runs of up to
#        ConfirmRound::RUN s on one boot, longer at a low rate: Lab#min_run),
#        and as in round 3 once more at 85% of the knee if that does not
#        hold. Winner: the highest rate a confirmation held (then the higher
#        knee, then the smaller footprint).
# Verdict: the same winner; or, when they differ, a decision between the two
#        as tune's round 3 makes it: 3 paired rounds at the rate the grid
#        winner held (after both searches, not timed; at 85% of it when the
#        grid's winner does not hold there this time), each round both
#        winners once on a fresh boot in a random order, and Stats::Decision
#        (paired, margin 5%) on achieved req/s. Tied: equivalent within the
#        margin, with the SLO verdicts agreeing (both hold; or neither, when
#        even the grid's winner fails at 85% of its own confirmed rate: its
#        confirmation was noise); undecided is said as undecided.
# The ratio is tune's wall time over the grid's (monotonic clock); target:
# the grid's winner or a tie in at most 25% of the grid's time. Printed
# beside it: the ratio to the grid's knee searches alone (a grid that skips
# confirmation, and so picks its winner on less evidence than tune's).
#
# Limits: one run of each (no spread on the times); both share the machine
# with wrk, as every rackbench measurement does on one host.

require "json"
require "tmpdir"
require "stringio"
require "rackbench/cli"
require "rackbench/clock"
require "rackbench/plan/config"
require "rackbench/plan"
require "rackbench/runner"
require "rackbench/cli/measuring"
require "rackbench/stats/slo"
require "rackbench/units"
require "rackbench/search/tune"
require "rackbench/search/tune/lab"
require "rackbench/stats/decision"
require "rackbench/report/decision_text"

WORKLOADS = { "random" => ["/random", "3s"], "cpu" => ["/fibonacci/20", "500ms"], "io" => ["/pause/0.05", "500ms"] }.freeze
SMALL = ARGV.delete("--small")
kind = ARGV.fetch(0, "random")
ENDPOINT, default_slo = WORKLOADS.fetch(kind) { abort "usage: bench/tune_vs_grid.rb [#{WORKLOADS.keys.join('|')}] [SLO] [--small]" }
SLO_TEXT = ARGV.fetch(1, default_slo)
SLO = Rackbench::Stats::Slo.new(p99_ms: Rackbench::Units.millis(SLO_TEXT), error_rate: 0.001)
SPACE_ARGS = SMALL ? ["--max-workers", "2", "--puma-threads", "1,3,5"] : []
Lab = Rackbench::Search::Tune::Lab
Racing = Rackbench::Search::Tune::Racing
Confirm = Rackbench::Search::Tune::ConfirmRound

def timed
  started = Rackbench::Clock.now
  value = yield
  [value, Rackbench::Clock.now - started]
end

# A Runner context on its own run directory, for the grid and the tie check,
# in the frame rackbench's own measuring commands run in (CLI::Measuring:
# locked run directory, meta.json, warnings.jsonl, every child stopped).
def with_lab(dir)
  config = Rackbench::Config.build(endpoints: [ENDPOINT], warmup: 1, cooldown: 0, quiet: true)
  plan = Rackbench::Plan.new(config)
  frame = Rackbench::CLI::Measuring.new(command: "bench tune_vs_grid", argv: ARGV, err: $stderr, quiet: true)
  frame.call(out: dir, meta: { "plan" => plan.to_h, "config" => Rackbench::Config.dump(config) }) do |store, listener|
    runner = Rackbench::Runner.new(plan: plan, store: store, engine: Rackbench::Load.engine("wrk"), listener: listener)
    runner.with_context do |ctx|
      yield Lab.new(context: ctx, endpoint: ENDPOINT, slo: SLO, deadline: Rackbench::Search::Tune::Deadline.new(1e9))
    end
  end
end

# Entry-like view of one grid setup, for Racing.overlap?
# held: the rate its confirmation held (its knee, or 85% of it), nil if neither.
Knee = Struct.new(:label, :knee_rps, :knee_fail, :footprint_mb, :held) do
  def knee_upper = knee_fail || knee_rps * (1 + Racing::KNEE_PRECISION)
end

# [knees, seconds spent on knee searches]; the rest of the grid's time is confirmation.
def grid(dir, space)
  knee_s = 0.0
  knees = with_lab(dir) do |lab|
    space.map do |label|
      setup = Rackbench::Setup.parse(label)
      # Connections provisioned for the SLO's p99 (the most any answer within
      # it can take): a 1 s warm-up's median under-provisions a mix with 1 s
      # requests, and the levels then fail for want of connections.
      o, s = timed { lab.knee(setup, guess: 0, expected_latency: SLO.p99_ms / 1000.0, max_levels: Rackbench::Search::Tune::KNEE_LEVELS) }
      knee_s += s
      rate = o.knee&.dig("pass")
      records = o.records
      held = nil
      # Round 3's rule: confirm at the knee; if it does not hold, once more at 85% of it.
      [rate, rate && (rate * Confirm::RETRY_FACTOR).round(1)].compact.each do |at|
        run = [Confirm::RUN, lab.min_run(at)].max
        c = lab.confirm(setup, rate: at, repeat: Confirm::ROUNDS, duration: lab.window(run),
                               expected_latency: SLO.p99_ms / 1000.0)
        records += c.records
        next unless Racing.confirmation(c.records, SLO)["holds"]

        held = at
        break
      end
      mb = Rackbench::Stats::Summary.of(records.map { |r| r.dig("memory", "pss_total_mb") }).median
      Knee.new(label, rate, o.knee&.dig("fail"), mb, held)
    end
  end
  [knees, knee_s]
end

# Both winners at the rate the grid's winner held, in 3 paired rounds (each
# round: both once, a fresh boot each, in a random order); when the grid's
# winner does not hold there this time, once more at 85% of it. Returns
# [rate, Stats::Decision of b's req/s against a's, {label => holds}] of the
# last rate tried.
def tie_check(dir, a, b, rate)
  rng = Random.new(22)
  with_lab(dir) do |lab|
    [rate, (rate * Confirm::RETRY_FACTOR).round(1)].each do |at|
      run = [Confirm::RUN, lab.min_run(at)].max
      runs = { a => [], b => [] }
      Confirm::ROUNDS.times do
        [a, b].shuffle(random: rng).each do |label|
          o = lab.confirm(Rackbench::Setup.parse(label), rate: at, repeat: 1, duration: lab.window(run),
                                                         expected_latency: SLO.p99_ms / 1000.0)
          runs[label] << o.records.first
        end
      end
      holds = runs.transform_values { |records| Racing.confirmation(records.compact, SLO)["holds"] }
      rps = runs.transform_values { |records| records.map { |r| r && (r["goodput_rps"] || r["rps"]).to_f } }
      decision = Rackbench::Stats::Decision.of(rps[a], rps[b], paired: true) if (rps[a] + rps[b]).none?(&:nil?)
      return [at, decision, holds] if holds[a] || at != rate
    end
  end
end

root = Dir.mktmpdir("rackbench-tune-vs-grid")
puts "endpoint #{ENDPOINT}, SLO #{SLO.describe}, space: #{SMALL ? '8 setups (--small)' : "tune's own"}"
puts "machine: #{Etc.nprocessors} cores; run directories under #{root}"

err = StringIO.new
status, tune_s = timed do
  Rackbench::CLI.call(["tune", "--servers", "puma,unicorn", *SPACE_ARGS, "--memory-budget", "2GiB", "-e", ENDPOINT,
                       "--slo-p99", SLO_TEXT, "-o", File.join(root, "tune"), "-q"], out: StringIO.new, err: err)
end
abort "tune failed (exit #{status}): #{err.string}" unless status.zero?
rec = JSON.parse(File.read(File.join(root, "tune", "recommendation.json")))
journal = File.readlines(File.join(root, "tune", "tune.jsonl")).map { |l| JSON.parse(l) }
space = journal.find { |row| row["type"] == "space" }.fetch("candidates")
rounds = journal.select { |row| row["type"] == "round" }.to_h { |row| [row["round"], row["elapsed_s"]] }
searched = journal.count { |row| row["type"] == "level" }
puts "space: #{space.size} setups: #{space.join(', ')}"
puts format("tune: %-11s knee %s req/s (evidence: %s), %d knee levels measured, %.1f s (rounds ended at %s s)",
            rec["setup"], Racing.rps(rec["knee_rps"]), rec["evidence"], searched, tune_s, rounds.values.join(", "))

(knees, knee_s), grid_s = timed { grid(File.join(root, "grid"), space) }
confirmed = knees.select(&:held)
ranked = if confirmed.any?
           confirmed.sort_by { |k| [-k.held, -k.knee_rps, k.footprint_mb || Float::INFINITY] }
         else
           knees.select(&:knee_rps).sort_by { |k| [-k.knee_rps, k.footprint_mb || Float::INFINITY] }
         end
best = ranked.first or abort "grid: no setup met the SLO"
best_rate = best.held || best.knee_rps
puts format("grid: %-11s knee %s req/s, confirmed at %s req/s, %.1f s (knee searches %.1f s, confirmation %.1f s)", best.label,
            Racing.rps(best.knee_rps), Racing.rps(best.held), grid_s, knee_s, grid_s - knee_s)
knees.each do |k|
  puts format("      %-11s knee %8s  fails at %8s  held at %8s  PSS %s MiB", k.label, Racing.rps(k.knee_rps),
              Racing.rps(k.knee_fail), Racing.rps(k.held), k.footprint_mb&.round(1) || "-")
end

verdict =
  if rec["setup"] == best.label
    "same winner"
  else
    tuned = knees.find { |k| k.label == rec["setup"] }
    overlap = tuned&.knee_rps && Racing.overlap?(tuned, best)
    at, decision, holds = tie_check(File.join(root, "tie"), best.label, rec["setup"], best_rate)
    # Tied: equivalent on achieved req/s within the margin, and the SLO
    # verdicts agree (both hold; or neither, when even the grid's winner did
    # not hold at 85% of its confirmed rate this time).
    words = if decision
              entry = Rackbench::Stats::Decisions::Entry.new(metric: "rps", decision: decision)
              "#{rec['setup']} against #{best.label}: #{Rackbench::Report::DecisionText.phrase(entry)}"
            else
              "req/s not decided (a round without a measurement)"
            end
    tied = decision&.outcome == :equivalent && holds.values.uniq.size == 1
    format("%s at %s req/s, %d paired rounds: %s; SLO held: %s; grid knee brackets %s",
           tied ? "tied" : "not shown tied", Racing.rps(at), Confirm::ROUNDS, words,
           holds.map { |l, h| "#{l} #{h ? 'yes' : 'no'}" }.join(", "), overlap ? "overlap" : "do not overlap")
  end
puts "verdict: #{verdict}"
ratio = tune_s / grid_s
puts format("tune's wall time: %.0f%% of the grid's (%.1f s / %.1f s; target <= 25%%: %s); %.0f%% of its knee searches alone",
            ratio * 100, tune_s, grid_s, ratio <= 0.25 ? "met" : "missed", tune_s / knee_s * 100)
