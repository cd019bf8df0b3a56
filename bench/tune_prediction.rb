# frozen_string_literal: true

# Does starting tune from the probe split's prediction (issue 26) reach the
# optimum sooner? For each workload, `rackbench tune` twice back to back on
# this machine: with the prediction ordering round 1 (the default), and with
# --no-predict (round 1 in its plain order, largest capacity first). Printed
# per run: the prediction, the winner, whether its optimum was bracketed
# (tune's edges), the whole search's time, and the time from the search's
# first trial to the first trial of the setup it recommended (the trials'
# wall-clock start times, as trials.jsonl records them, to the millisecond).
#
#   bundle exec ruby -Ilib bench/tune_prediction.rb [TIME_BUDGET]   (default 3m)
#
# Workloads: the arena's /pause-and-render/0.02 (a rendered page after a
# 20 ms wait: IO and CPU) and the Rails workload's /articles (seed 001's
# page: SQLite, CPU-bound), both with --probe (the arena has it always).
# The space is kept small (--servers puma, --max-workers 4, Puma threads
# 1, 2, 3, 5, 8, 16) so each search fits its budget on 2 cores.
#
# Limits: one run of each (no spread), a noisy shared host; round 1 probes
# every setup either way, so the prediction changes the order of the
# evidence and what a budget that runs out has measured, not the winner's
# rule; both share the machine with wrk.

require "json"
require "tmpdir"
require "time"
require "stringio"
require "rackbench/cli"

BUDGET = ARGV.fetch(0, "3m")
WORKLOADS = {
  "arena /pause-and-render/0.02" => ["-e", "/pause-and-render/0.02"],
  "rails /articles" => ["--app", "rails", "--probe", "-e", "/articles"]
}.freeze

def tune(dir, args, predict)
  err = StringIO.new
  out = StringIO.new
  argv = ["tune", "--servers", "puma", "--memory-budget", "1GiB", "--slo-p99", "300ms", "--max-workers", "4",
          "--time-budget", BUDGET, "-q", "-o", dir, *args, *(predict ? [] : ["--no-predict"])]
  status = Rackbench::CLI.call(argv, out: out, err: err, env: ENV.to_h)
  raise "tune failed (#{status}): #{err.string.lines.last(3).join}" unless status.zero?

  rec = JSON.parse(File.read(File.join(dir, "recommendation.json")))
  trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  start = trials.map { |t| Time.parse(t["started_at"]) }.min
  first = trials.select { |t| t["setup"] == rec["setup"] }.map { |t| Time.parse(t["started_at"]) }.min
  { winner: rec["setup"], predicted: rec.dig("prediction", "predicted"), bracketed: rec.dig("edges", "bracketed"),
    total_s: rec["elapsed_s"], to_winner_s: first && (first - start).round(1) }
end

puts format("%-30s %-11s %-12s %-12s %-9s %8s %14s", "workload", "round 1", "predicted", "winner", "bracketed", "total s",
            "to winner s")
WORKLOADS.each do |name, args|
  Dir.mktmpdir("rackbench-tune-prediction") do |tmp|
    { "predicted" => true, "plain" => false }.each do |mode, predict|
      r = tune(File.join(tmp, mode), args, predict)
      puts format("%-30s %-11s %-12s %-12s %-9s %8s %14s", name, mode, r[:predicted] || "-", r[:winner], r[:bracketed].inspect,
                  r[:total_s], r[:to_winner_s] || "-")
    end
  end
end
