# frozen_string_literal: true

# Does `rackbench tune` find what an exhaustive grid finds, in a fraction of
# its time? Both search the same small space back to back on this machine:
# servers puma and unicorn, at most 2 workers, Puma threads 1, 3, 5
# (8 setups: puma x1:1 x1:3 x1:5 x2:1 x2:3 x2:5, unicorn x1 x2).
#
#   bundle exec ruby -Ilib bench/tune_vs_grid.rb [random|cpu|io] [SLO]
#   e.g. ruby -Ilib bench/tune_vs_grid.rb io 500ms
#
#   random  /random        the App Server Arena's mixed workload (default)
#   cpu     /fibonacci/20  CPU-bound
#   io      /pause/0.05    IO-bound (the quickest to converge)
#
# tune:  `rackbench tune --servers puma,unicorn --max-workers 2 --puma-threads 1,3,5`
#        (memory 2 GiB, so only the core cap of 2 bounds workers; 10 min budget).
# grid:  for every setup, the open-loop knee search tune's round 2 runs
#        (Tune::Lab#knee: warm-up, at most 5 levels of 2 s runs, from 80% to
#        110% of the saturated throughput); the winner is the highest knee.
# Verdict: the same winner; or, when they differ, a statistical tie: both
#        winners run 3 x 4 s at the grid winner's knee (after both
#        searches, not timed) and Welch's t-test (two-sided, alpha 0.05) finds
#        no significant difference in achieved req/s while both hold the SLO.
# The ratio is tune's wall time over the grid's (monotonic clock); target:
# the grid's winner or a tie in at most 25% of the grid's time.
#
# Limits: one run of each (no spread on the times); both share the machine
# with wrk, as every rackbench measurement does on one host.

require "json"
require "tmpdir"
require "stringio"
require "rackbench/cli"
require "rackbench/clock"
require "rackbench/config"
require "rackbench/plan"
require "rackbench/runner"
require "rackbench/environment"
require "rackbench/store/run_dir"
require "rackbench/report/listener"
require "rackbench/search/slo"
require "rackbench/search/tune"
require "rackbench/search/tune/lab"
require "rackbench/stats/welch"
require "rackbench/process/registry"

ENDPOINTS = { "random" => "/random", "cpu" => "/fibonacci/20", "io" => "/pause/0.05" }.freeze
kind = ARGV.fetch(0, "random")
ENDPOINT = ENDPOINTS.fetch(kind) { abort "usage: bench/tune_vs_grid.rb [#{ENDPOINTS.keys.join('|')}] [SLO]" }
SLO_TEXT = ARGV.fetch(1, "500ms")
SLO = Rackbench::Search::Slo.new(p99_ms: Rackbench::Search::Tune::Units.millis(SLO_TEXT), error_rate: 0.001)
SPACE = ["puma x1:1", "puma x1:3", "puma x1:5", "puma x2:1", "puma x2:3", "puma x2:5", "unicorn x1", "unicorn x2"].freeze
Lab = Rackbench::Search::Tune::Lab
Racing = Rackbench::Search::Tune::Racing

def timed
  started = Rackbench::Clock.now
  value = yield
  [value, Rackbench::Clock.now - started]
end

# A Runner context on its own run directory, for the grid and the tie check.
def with_lab(dir)
  config = Rackbench::Config.build(endpoints: [ENDPOINT], warmup: 1, cooldown: 0, quiet: true)
  plan = Rackbench::Plan.new(config)
  store = Rackbench::Store::RunDir.create(dir)
  store.write_meta(Rackbench::Environment.collect.merge("command" => "bench tune_vs_grid", "plan" => plan.to_h,
                                                        "started_at" => Rackbench::Clock.wall_iso8601))
  runner = Rackbench::Runner.new(plan: plan, store: store, engine: Rackbench::Load.engine("wrk"),
                                 listener: Rackbench::Report::Fanout.new([]))
  runner.with_context do |ctx|
    yield Lab.new(context: ctx, endpoint: ENDPOINT, slo: SLO, deadline: Rackbench::Search::Tune::Deadline.new(1e9))
  end
ensure
  Rackbench::ProcessControl::Registry.stop_all
end

# Entry-like view of one grid knee, for Racing.overlap?
Knee = Struct.new(:label, :knee_rps, :knee_fail, :footprint_mb) do
  def knee_upper = knee_fail || knee_rps * (1 + Racing::KNEE_PRECISION)
end

def grid(dir)
  with_lab(dir) do |lab|
    SPACE.map do |label|
      o = lab.knee(Rackbench::Setup.parse(label), guess: 0, expected_latency: nil, max_levels: Rackbench::Search::Tune::KNEE_LEVELS)
      mb = Rackbench::Stats::Summary.of(o.records.map { |r| r.dig("memory", "pss_total_mb") }).median
      Knee.new(label, o.knee&.dig("pass"), o.knee&.dig("fail"), mb)
    end
  end
end

def tie_check(dir, a, b, rate)
  with_lab(dir) do |lab|
    runs = [a, b].to_h do |label|
      o = lab.confirm(Rackbench::Setup.parse(label), rate: rate, repeat: 3, duration: lab.window(4), expected_latency: SLO.p99_ms / 1000.0)
      [label, o.records]
    end
    cmp = Racing.compare(runs[a], runs[b])
    holds = runs.transform_values { |records| Racing.confirmation(records, SLO)["holds"] }
    [cmp, holds]
  end
end

root = Dir.mktmpdir("rackbench-tune-vs-grid")
puts "endpoint #{ENDPOINT}, SLO #{SLO.describe}, #{SPACE.size} setups: #{SPACE.join(', ')}"
puts "machine: #{Etc.nprocessors} cores; run directories under #{root}"

err = StringIO.new
status, tune_s = timed do
  Rackbench::CLI.call(["tune", "--servers", "puma,unicorn", "--max-workers", "2", "--puma-threads", "1,3,5",
                       "--memory-budget", "2GiB", "-e", ENDPOINT, "--slo-p99", SLO_TEXT, "--time-budget", "10m",
                       "-o", File.join(root, "tune"), "-q"], out: StringIO.new, err: err)
end
abort "tune failed (exit #{status}): #{err.string}" unless status.zero?
rec = JSON.parse(File.read(File.join(root, "tune", "recommendation.json")))
searched = File.readlines(File.join(root, "tune", "tune.jsonl")).count { |l| l.include?('"type":"level"') }
puts format("tune: %-11s knee %s req/s (evidence: %s), %d knee levels measured, %.1f s",
            rec["setup"], Racing.rps(rec["knee_rps"]), rec["evidence"], searched, tune_s)

knees, grid_s = timed { grid(File.join(root, "grid")) }
ranked = knees.select(&:knee_rps).sort_by { |k| [-k.knee_rps, k.footprint_mb || Float::INFINITY] }
best = ranked.first or abort "grid: no setup met the SLO"
puts format("grid: %-11s knee %s req/s, %.1f s", best.label, Racing.rps(best.knee_rps), grid_s)
knees.each { |k| puts format("      %-11s knee %8s  fails at %8s  PSS %s MiB", k.label, Racing.rps(k.knee_rps), Racing.rps(k.knee_fail), k.footprint_mb&.round(1) || "-") }

verdict =
  if rec["setup"] == best.label
    "same winner"
  else
    tuned = knees.find { |k| k.label == rec["setup"] }
    overlap = tuned&.knee_rps && Racing.overlap?(tuned, best)
    cmp, holds = tie_check(File.join(root, "tie"), best.label, rec["setup"], best.knee_rps)
    tied = !cmp.dig("rps", "significant") && holds.values.all?
    format("%s at %s req/s, 3 x 4 s runs each: req/s %+.1f%% (p = %.3f), p99 %+.1f%% (p = %.3f); SLO held: %s; grid knee brackets %s",
           tied ? "statistically tied" : "different", Racing.rps(best.knee_rps), cmp.dig("rps", "diff_pct").to_f, cmp.dig("rps", "p").to_f,
           cmp.dig("p99_ms", "diff_pct").to_f, cmp.dig("p99_ms", "p").to_f, holds.map { |l, h| "#{l} #{h ? 'yes' : 'no'}" }.join(", "),
           overlap ? "overlap" : "do not overlap")
  end
puts "verdict: #{verdict}"
ratio = tune_s / grid_s
puts format("tune's wall time: %.0f%% of the grid's (%.1f s / %.1f s; target <= 25%%: %s)", ratio * 100, tune_s, grid_s,
            ratio <= 0.25 ? "met" : "missed")
