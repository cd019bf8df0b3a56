# frozen_string_literal: true

# Do rackbench's decisions between setups say what is true, on this machine?
# Three measurements, printed side by side in one run (the machine's noise
# drifts by minutes, so figures from different runs are not compared):
#
# 1. A/A: one setup under two names ("puma x2:5 #a", "puma x2:5 #b") on a
#    CPU-bound endpoint (/fibonacci/25, c=8), RUNS runs of run --decide
#    with --max-rounds ROUNDS each (the product's stopping rule: a run ends
#    decided, or undecided at ROUNDS), at the default 5% margin. Target:
#    "faster"/"slower" in at most 5% of the runs (the false-decision rate),
#    and runs that do decide (equivalent), so the rate is one that could fail
#    (3 fixed rounds left every A/A run undecided).
# 2. A known difference: "puma x1:10" against "puma x1:11" on /pause/0.05 at
#    c=16: each thread serves one request per 50 ms, so by construction (Little's
#    law) they serve 200 and 220 req/s, a true ratio of 1.10. Target: decided
#    "faster" for x1:11 in at least 90% of the runs (run --decide, as above).
# 3. Time and width: a CPU-bound A/A pair in interleaved rounds for up to
#    MINUTES minutes; after each round, the 95% interval of the paired req/s
#    ratio; the minutes to reach +-3% (or the width reached and the rounds
#    +-3% would take, from the observed spread). Beside it, the variance at
#    each level, measured apart: between fresh boots (one trial per boot)
#    and between trials of one boot, as in Kalibera & Jones (ISMM 2013),
#    which says whether boots or trials are the cheaper to buy.
#
#   bundle exec ruby -Ilib bench/decision.rb [RUNS] [ROUNDS] [MINUTES]   (defaults 20 10 5)
#
# Every run is a real `rackbench run` (servers booted, wrk, stored trials);
# the figures are read back from its run directory's JSON report.

require "json"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/clock"
require "rackbench/stats/decision"
require "rackbench/stats/summary"
require "rackbench/stats/student_t"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/load"
require "rackbench/workload/arena"

runs = Integer(ARGV[0] || 20)
rounds = Integer(ARGV[1] || 10)
minutes = Float(ARGV[2] || 5)
COMMON = ["-d", "1", "--warmup", "0.5", "--cooldown", "0.5", "-q"].freeze

def run(dir, *argv)
  err = StringIO.new
  status = Rackbench::CLI.call(["run", *argv, *COMMON, "-o", dir], out: StringIO.new, err: err, env: ENV.to_h)
  raise "rackbench run failed (#{status}): #{err.string.lines.last(3).join}" unless [0, 1].include?(status)

  out = StringIO.new
  report_err = StringIO.new
  Rackbench::CLI.call(["report", dir, "--format", "json"], out: out, err: report_err, env: ENV.to_h)
  raise "rackbench report #{dir} gave nothing (run exited #{status}): #{err.string.lines.last(3).join} #{report_err.string}" if out.string.empty?

  JSON.parse(out.string)
end

def rps_decision(doc)
  doc["decisions"].find { |d| d["metric"] == "rps" }
end

started = Rackbench::Clock.now
Dir.mktmpdir("rackbench-decision") do |tmp|
  # 1. A/A
  aa = (1..runs).map do |i|
    d = rps_decision(run(File.join(tmp, "aa#{i}"), "-s", "puma x2:5 #a", "-s", "puma x2:5 #b", "-e", "/fibonacci/25",
                         "-c", "8", "--decide", "--max-rounds", rounds.to_s))
    printf("A/A %2d: %-10s ratio %.3f [%.3f-%.3f] after %d rounds\n", i, d["outcome"], d["ratio"], d["ci_low"], d["ci_high"], d["rounds"])
    d
  end
  false_calls = aa.count { |d| %w[faster slower].include?(d["outcome"]) }
  known_rounds = 0

  # 2. Known difference (x1:11 serves 1.10x x1:10's req/s by construction)
  known = (1..runs).map do |i|
    doc = run(File.join(tmp, "kd#{i}"), "-s", "puma x1:10", "-s", "puma x1:11", "-e", "/pause/0.05", "-c", "16",
              "--decide", "--max-rounds", rounds.to_s)
    d = rps_decision(doc)
    # A is the faster in the cell's ranking: x1:11 faster means A = x1:11 and B "slower" by ~9%.
    right = d["a"] == "puma x1:11" && d["outcome"] == "slower"
    known_rounds += d["rounds"]
    printf("known %2d: A %-10s B %-10s %-10s B/A %.3f [%.3f-%.3f]%s\n", i, d["a"], d["b"], d["outcome"], d["ratio"],
           d["ci_low"], d["ci_high"], right ? "" : "  (not decided right)")
    right
  end

  # 3. Time and width: one A/A run with as many rounds as fit in MINUTES
  # (from the A/A runs' pace), read back round by round: the interval after
  # the first k rounds, and when it first reaches +-3%.
  per_round = (Rackbench::Clock.now - started) / (aa.sum { |d| d["rounds"] } + known_rounds) # both phases so far
  big = [(minutes * 60 / per_round).floor, 3].max
  doc = run(File.join(tmp, "width"), "-s", "puma x2:5 #a", "-s", "puma x2:5 #b", "-e", "/fibonacci/25", "-c", "8",
            "-r", big.to_s)
  by_round = doc["trials"].group_by { |t| t["repetition"] }.sort.map do |_, ts|
    ts.sort_by { |t| t["setup"] }.map { |t| t["rps"] }
  end.select { |pair| pair.size == 2 }
  logs = by_round.map { |a, b| Math.log(b / a) }
  reached = nil
  width_rows = (2..logs.size).map do |k|
    d = Rackbench::Stats::Decision.of(by_round.first(k).map(&:first), by_round.first(k).map(&:last), paired: true)
    half = Math.sqrt(d.ci_high / d.ci_low) - 1
    reached ||= [k, k * per_round / 60] if half <= 0.03
    [k, k * per_round / 60, half * 100]
  end
  width_rows.each_slice([width_rows.size / 8, 1].max).map(&:last).each do |k, mins, half|
    printf("width: %3d rounds, ~%4.1f min: +-%.1f%%\n", k, mins, half)
  end
  sd = Math.sqrt(logs.sum { |x| (x - logs.sum / logs.size)**2 } / (logs.size - 1))
  need = (2..10_000).find { |n| Rackbench::Stats::StudentT.quantile(0.975, n - 1) * sd / Math.sqrt(n) <= Math.log(1.03) }

  # Variance at each level: 6 fresh boots x 1 trial, and 1 boot x 6 trials (wrk directly, 1 s each).
  engine = Rackbench::Load.engine("wrk")
  boot = lambda do |dir|
    setup = Rackbench::Setup.parse("puma x2:5")
    Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma"), setup: setup,
                                                  app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free,
                                                  dir: dir, ready_path: "/health").start
  end
  measure = lambda do |instance, dir, i|
    url = instance.url("/fibonacci/25")
    engine.run(url: url, concurrency: 8, duration: 1, log_path: File.join(dir, "w#{i}.log"))
    engine.run(url: url, concurrency: 8, duration: 1, log_path: File.join(dir, "m#{i}.log")).rps
  end
  between = (1..6).map do |i|
    dir = File.join(tmp, "boot#{i}")
    instance = boot.call(dir)
    begin
      measure.call(instance, dir, i)
    ensure
      instance.stop
    end
  end
  within = begin
    dir = File.join(tmp, "one-boot")
    instance = boot.call(dir)
    (1..6).map { |i| measure.call(instance, dir, i) }
  ensure
    instance&.stop
  end
  cv = ->(xs) { Rackbench::Stats::Summary.of(xs).cv.to_f * 100 }

  puts
  puts "=== bench/decision.rb: #{runs} runs of run --decide --max-rounds #{rounds} each, #{((Rackbench::Clock.now - started) / 60).round(1)} min in all"
  printf("A/A (puma x2:5 #a/#b, /fibonacci/25 c=8): faster/slower in %d of %d runs = %.0f%% (target <= 5%%); " \
         "outcomes %s\n", false_calls, runs, 100.0 * false_calls / runs, aa.map { |d| d["outcome"] }.tally)
  printf("known difference (puma x1:11 vs x1:10, /pause/0.05 c=16, true ratio 1.10): decided right in %d of %d = %.0f%% " \
         "(target >= 90%%)\n", known.count(true), runs, 100.0 * known.count(true) / runs)
  # The first round at which the interval reached +-3% can be a lucky dip;
  # from "held" on, it stayed within +-3% for every later round measured.
  held = width_rows.each_index.find { |i| width_rows[i..].all? { |_, _, half| half <= 3.0 } }&.then { |i| width_rows[i] }
  if reached
    printf("time to +-3%% on a CPU-bound pair: first %d rounds, ~%.1f minutes; %s (target <= 5; %.0f s a round)\n",
           reached[0], reached[1], held ? format("within it for good from %d rounds, ~%.1f minutes", held[0], held[1]) : "not held to the end",
           per_round)
  else
    printf("time to +-3%% on a CPU-bound pair: not reached in %d rounds (~%.1f min): +-%.1f%%; the spread of the " \
           "per-round log ratios (sd %.3f) puts +-3%% at about %s rounds, ~%.0f minutes\n", logs.size,
           logs.size * per_round / 60, width_rows.last[2], sd, need || ">10000", (need || 10_000) * per_round / 60)
  end
  printf("variance by level (req/s, /fibonacci/25 c=8, 1 s trials): between fresh boots cv %.1f%% (%s); " \
         "between trials of one boot cv %.1f%% (%s)\n", cv.call(between), between.map(&:round).join(", "),
         cv.call(within), within.map(&:round).join(", "))
end
