# frozen_string_literal: true

# Does `run --ref BASE --ref HEAD --decide --fail-if-slower 5` cry wolf, and
# does it catch a real slowdown? Printed side by side in one run, on an app
# made here in a temporary git repository (held out from rackbench's own
# apps): its /work spends a fixed amount of CPU per request in the request's
# thread, and three commits on top of the base change it:
#
#   readme   a README-only change: must never fail the gate (0 or 3)
#   10%      10% more of that work per request: should fail it (>= 80%)
#   2x       twice the work: must always fail it (100%)
#
# Each change is gated RUNS times against the base, every run a real
# `rackbench run` (fresh boots per round, interleaved, --decide up to
# --max-rounds ROUNDS), and the minutes each took are printed.
#
#   bundle exec ruby -Ilib bench/ref_gate.rb [RUNS] [ROUNDS]   (defaults 10 12; about 30 minutes on 2 cores)

require "fileutils"
require "open3"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/clock"

$stdout.sync = true
RUNS = Integer(ARGV[0] || 10)
ROUNDS = Integer(ARGV[1] || 12)

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

Dir.mktmpdir("rackbench-ref-gate") do |tmp|
  repo = File.join(tmp, "app")
  FileUtils.mkdir_p(repo)
  git(repo, "init", "-q", "-b", "main", ".")
  base = commit(repo, "base", app: APP, readme: "# app\n")
  changes = {
    "readme" => commit(repo, "docs", readme: "# app\n\nNow with words.\n"),
    "10%" => (git(repo, "checkout", "-q", base) && commit(repo, "10% more work", app: APP.sub("20_000", "22_000"))),
    "2x" => (git(repo, "checkout", "-q", base) && commit(repo, "twice the work", app: APP.sub("20_000", "40_000")))
  }
  git(repo, "checkout", "-q", "main")
  results = changes.transform_values { [] }
  RUNS.times do |i|
    changes.each do |name, sha|
      t0 = Rackbench::Clock.now
      out = StringIO.new
      err = StringIO.new
      status = Rackbench::CLI.call(["run", "--app", repo, "--ref", base, "--ref", sha, "-s", "puma x1:2", "-e", "/work", "-c", "2",
                                    "-d", "1", "--warmup", "0.5", "--decide", "--max-rounds", ROUNDS.to_s, "--fail-if-slower", "5",
                                    "-q", "-o", File.join(tmp, "#{name.delete('%')}-#{i}")], out: out, err: err, env: ENV.to_h)
      minutes = (Rackbench::Clock.now - t0) / 60
      line = err.string.lines.grep(/\A(Passed|Slower|Undecided|Gate failed):/).last.to_s
      results[name] << [status, minutes]
      printf("%-6s run %2d: exit %d in %.1f min: %s\n", name, i + 1, status, minutes, line[0, 160].strip)
    end
  end
  puts
  puts "=== bench/ref_gate.rb: #{RUNS} runs of each change, --decide --max-rounds #{ROUNDS}, --fail-if-slower 5"
  results.each do |name, rs|
    failed = rs.count { |s, _| s == 1 }
    target = { "readme" => "never fails (target 0%)", "10%" => "fails in >= 80%", "2x" => "always fails (target 100%)" }[name]
    printf("%-6s failed the gate in %d of %d (%.0f%%; %s); exits %s; %.1f min a run on average\n", name, failed, rs.size,
           100.0 * failed / rs.size, target, rs.map(&:first).tally, rs.sum(&:last) / rs.size)
  end
end
