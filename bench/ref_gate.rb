# frozen_string_literal: true

# Does `run --ref BASE --ref HEAD --decide --fail-if-slower 5` cry wolf, and
# does it catch a real slowdown? Printed side by side in one run, on an app
# made here in a temporary git repository (held out from rackbench's own
# apps): its /work spends a fixed amount of CPU per request in the request's
# thread, and three commits on top of the base change it:
#
#   readme   a README-only change: must never fail the gate (0 or 3)
#   10%      a 10% slower endpoint: should fail it (>= 80%). /work's loop is
#            most but not all of a request's time (Puma, Rack and the socket
#            take the rest), so 10% more of it made /work only ~8% slower
#            here; the commit adds 11.25% (WORK 20_000 -> 22_250), and the
#            bench prints the slowdown its runs measured, pooled over their
#            rounds, beside the outcomes
#   2x       twice the work: must always fail it (100%)
#
# Each change is gated RUNS times against the base, every run a real
# `rackbench run` (fresh boots per round, interleaved, --decide up to
# --max-rounds ROUNDS), and the minutes each took are printed. The run is
# the command docs/your-change.md gives for a gate, with the user's
# defaults: -d 2 s of load per trial, 1 s of warm-up, --max-rounds 20, and
# --cpus auto (the server on one CPU, wrk on the other: on 2 cores the
# per-round spread of a shared run was 2.4-8% here, of a pinned one 1.1-2.5%).
# One cell, c = 2 on puma x1:2, so that the bench measures the gate, not a
# ladder of levels. Fewer rounds or shorter trials are arguments, to see
# what they cost in decisions.
#
#   bundle exec ruby -Ilib bench/ref_gate.rb [RUNS] [ROUNDS] [SECONDS]
#   (defaults 10 20 2: about 50 minutes on 2 cores; needs a quiet machine,
#   as any measurement does: on a busy one the gate rightly says undecided)

require "fileutils"
require "json"
require "open3"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/clock"

$stdout.sync = true
RUNS = Integer(ARGV[0] || 10)
ROUNDS = Integer(ARGV[1] || 20)
SECONDS = Float(ARGV[2] || 2)

# The app of test/integration/ref_gate_test.rb: /work spends WORK iterations of CPU.
APP = File.read(File.expand_path("../test/fixtures/apps/cpu_work/config.ru", __dir__))

def git(dir, *args)
  out, status = Open3.capture2e("git", "-c", "user.email=bench@rackbench", "-c", "user.name=bench", *args, chdir: dir)
  raise "git #{args.join(' ')}: #{out}" unless status.success?

  out.strip
end

def commit(repo, message, app: nil, readme: nil)
  File.write(File.join(repo, "config.ru"), app) if app
  File.write(File.join(repo, "README.md"), readme) if readme
  git(repo, "add", ".")
  git(repo, "commit", "-qm", message)
  git(repo, "rev-parse", "HEAD")
end

# The rounds a run made: its stored trials' highest repetition.
def rounds(dir)
  File.foreach(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l)["repetition"].to_i }.max.to_i
rescue SystemCallError, JSON::ParserError
  0
end

# Each round's paired log ratio head/base of a run's stored trials.
def log_ratios(dir, base)
  trials = File.foreach(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  trials.group_by { |t| t["repetition"] }.filter_map do |_, ts|
    a, b = ts.partition { |t| t["setup"].to_s.include?(base[0, 7]) }.map { |side| side.first&.fetch("rps", nil) }
    Math.log(b / a) if a.to_f.positive? && b.to_f.positive?
  end
rescue SystemCallError, JSON::ParserError
  []
end

# The per-round spread of the paired log ratio (sample SD, in %): what the
# gate's intervals are made of.
def spread(dir, base)
  logs = log_ratios(dir, base)
  return Float::NAN if logs.size < 2

  mean = logs.sum / logs.size
  100 * Math.sqrt(logs.sum { |x| (x - mean)**2 } / (logs.size - 1))
end

Dir.mktmpdir("rackbench-ref-gate") do |tmp|
  repo = File.join(tmp, "app")
  FileUtils.mkdir_p(repo)
  git(repo, "init", "-q", "-b", "main", ".")
  base = commit(repo, "base", app: APP, readme: "# app\n")
  changes = {
    "readme" => commit(repo, "docs", readme: "# app\n\nNow with words.\n"),
    "10%" => (git(repo, "checkout", "-q", base) && commit(repo, "a 10% slower /work", app: APP.sub("20_000", "22_250"))),
    "2x" => (git(repo, "checkout", "-q", base) && commit(repo, "twice the work", app: APP.sub("20_000", "40_000")))
  }
  git(repo, "checkout", "-q", "main")
  results = changes.transform_values { [] }
  logs = changes.transform_values { [] }
  stopped = catch(:interrupted) do
    RUNS.times do |i|
      changes.each do |name, sha|
        t0 = Rackbench::Clock.now
        dir = File.join(tmp, "#{name.delete('%')}-#{i}")
        out = StringIO.new
        err = StringIO.new
        status = Rackbench::CLI.call(["run", "--app", repo, "--ref", base, "--ref", sha, "-s", "puma x1:2", "-e", "/work", "-c", "2",
                                      "-d", SECONDS.to_s, "--warmup", "1", "--cpus", "auto", "--decide", "--max-rounds", ROUNDS.to_s, "--fail-if-slower", "5",
                                      "-q", "-o", dir], out: out, err: err, env: ENV.to_h)
        minutes = (Rackbench::Clock.now - t0) / 60
        throw :interrupted, true if [130, 143].include?(status) # Ctrl-C or TERM: the runs so far are the result
        line = err.string.lines.grep(/\A(Passed|Slower|Undecided|Gate failed):/).last.to_s
        results[name] << [status, minutes]
        printf("%-6s run %2d: exit %d in %.1f min, %2d rounds, spread %.1f%%: %s\n", name, i + 1, status, minutes, rounds(dir), spread(dir, base),
               line[/\(req\/s [^)]*\)\)?/] || line[0, 160].strip)
        logs[name].concat(log_ratios(dir, base))
      end
    end
    false
  end
  puts
  puts "(interrupted: the runs that ended)" if stopped
  puts "=== bench/ref_gate.rb: #{RUNS} runs of each change, puma x1:2, /work at c = 2, -d #{SECONDS}, --warmup 1, --cpus auto, " \
       "--decide --max-rounds #{ROUNDS}, --fail-if-slower 5"
  results.each do |name, rs|
    failed = rs.count { |s, _| s == 1 }
    target = { "readme" => "never fails (target 0%)", "10%" => "fails in >= 80%", "2x" => "always fails (target 100%)" }[name]
    pooled = logs[name].empty? ? Float::NAN : 100 * (Math.exp(logs[name].sum / logs[name].size) - 1)
    printf("%-6s failed the gate in %d of %d (%.0f%%; %s); exits %s; %.1f min a run on average; " \
           "measured %+.1f%% req/s over its %d rounds\n", name, failed, rs.size, 100.0 * failed / [rs.size, 1].max, target,
           rs.map(&:first).tally, rs.sum(&:last) / [rs.size, 1].max, pooled, logs[name].size)
  end
end
