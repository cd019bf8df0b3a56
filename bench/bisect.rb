# frozen_string_literal: true

# Does `rackbench bisect` name the right commit, and what does a bisection
# cost? On held-out histories built here, in temporary git repositories:
# the arena app (apps/arena) copied and committed, then COMMITS commits on
# top, each a harmless change (a line in a README); in the "step" history
# one of them, at a position drawn per bisection, also makes /fibonacci/25
# do more work (fib(n - 5) and fib(n - 7) after fib(n): about 12% more of
# the request's CPU). The "none" history has no such commit: the answer
# must be "nothing to bisect". The "spread" history has three commits in a
# row, at a position drawn per bisection, each adding fib(n - 7) (about
# 3.4% more of the request's CPU, about 10% in all): no one of them is
# slower than its parent by more than the 5% margin, so none may be named
# alone; right is "spread" (exit 3) or a range, wrong is any one commit
# named.
#
# Each bisection is a real `rackbench bisect --app REPO --good BASE --bad
# HEAD -e /fibonacci/25 -s "puma x1:2" -c 2 --cpus auto` (every step a run
# --decide of fresh-boot interleaved rounds), called in this process; the
# bench prints, per bisection, the commit it named against the one it
# should have named, its exit, its decisions and its minutes, then the
# counts.
#
#   [SLOWDOWN=small|large] [SEED=44] [CPUS=auto|none] [VERBOSE=1] bundle exec ruby -Ilib bench/bisect.rb [COMMITS] [RUNS] [step|none] [MAX_ROUNDS] [SECONDS]
#   (defaults 16 5 step 12 2; the issue's targets are 64 commits and 20 runs
#   each: several hours on 2 cores, and a quiet machine, as any measurement)

require "fileutils"
require "open3"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/clock"

$stdout.sync = true
COMMITS = Integer(ARGV[0] || 16)
RUNS = Integer(ARGV[1] || 5)
MODE = (ARGV[2] || "step").to_sym
ROUNDS = Integer(ARGV[3] || 12)
SECONDS = Float(ARGV[4] || 2)
ARENA = File.expand_path("../apps/arena", __dir__)
# The culprit's added work: "small" (the default) about 12% more CPU a
# request, "large" fib(n) twice more (about 3x). VERBOSE=1 prints each
# bisection's whole screen (stdout and stderr) as well.
EXTRA = { "small" => "fib(n - 5) + fib(n - 7) if n > 7", "large" => "fib(n) + fib(n)" }.fetch(ENV.fetch("SLOWDOWN", "small"))
SLOWER = ["value = fib(n)", "value = fib(n)\n          #{EXTRA}"].freeze
# CPUS=none: the server and wrk share the cores (no --cpus auto), for a
# machine where other pinned servers crowd CPU 0.
CPUS = ENV["CPUS"] == "none" ? [] : ["--cpus", ENV.fetch("CPUS", "auto")]
abort "mode: step, none or spread" unless %i[step none spread].include?(MODE)
SPREAD = ["value = fib(n)", "value = fib(n)\n          fib(n - 7) if n > 7"].freeze

def git(dir, *args)
  out, status = Open3.capture2e("git", "-c", "user.email=bench@rackbench", "-c", "user.name=bench", *args, chdir: dir)
  raise "git #{args.join(' ')}: #{out}" unless status.success?

  out.strip
end

# A repository whose commit `culprit` (1..COMMITS, or nil) makes /fibonacci
# slower (spread: it and the next two each add a little).
def history(root, culprit)
  repo = File.join(root, "app")
  FileUtils.cp_r(ARENA, repo)
  git(repo, "init", "-q", "-b", "main", ".")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "base")
  (1..COMMITS).each do |i|
    File.write(File.join(repo, "README.md"), "change #{i}\n", mode: "a")
    fib = File.join(repo, "fibonacci.rb")
    File.write(fib, File.read(fib).sub(*SLOWER)) if i == culprit && MODE == :step
    File.write(fib, File.read(fib).sub(*SPREAD)) if MODE == :spread && (culprit...culprit + 3).cover?(i)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", i == culprit ? "change #{i}: more work in fibonacci" : "change #{i}")
  end
  repo
end

rng = Random.new(Integer(ENV.fetch("SEED", "44")))
rows = (1..RUNS).map do |run|
  Dir.mktmpdir("rackbench-bisect-bench") do |root|
    culprit = { step: -> { rng.rand(1..COMMITS) }, spread: -> { rng.rand(1..COMMITS - 2) } }[MODE]&.call
    repo = history(root, culprit)
    want = culprit && git(repo, "rev-parse", "--short=7", "main~#{COMMITS - culprit}")
    out = StringIO.new
    err = StringIO.new
    t0 = Rackbench::Clock.now
    status = Rackbench::CLI.call(["bisect", "--app", repo, "--good", "main~#{COMMITS}", "--bad", "main", "-e", "/fibonacci/25",
                                  "-s", "puma x1:2", "-c", "2", "-d", SECONDS.to_s, "--max-rounds", ROUNDS.to_s,
                                  *CPUS, "-o", File.join(root, "bisect")], out: out, err: err)
    minutes = (Rackbench::Clock.now - t0) / 60
    puts "#{err.string}#{out.string}" if ENV["VERBOSE"] == "1"
    answer = out.string.lines.first.to_s.strip
    named = status.zero? ? answer[/\A\h{7}/] : nil
    nothing = answer.include?("nothing to bisect")
    spread = answer.include?("is spread over")
    verdict = if MODE == :none then nothing ? "right (nothing)" : (named ? "WRONG (named #{named})" : "undecided")
              elsif MODE == :spread then named ? "WRONG (named #{named} alone)" : (spread ? "right (spread)" : "undecided")
              elsif named == want then "right"
              elsif named then "WRONG"
              else "undecided"
              end
    spent = err.string[/(\d+) decisions measured of (\d+)/]
    puts format("run %2d: culprit %-7s named %-7s %-18s exit %d, %s, %.1f min | %s", run, want || "-", named || "-", verdict,
                status, spent || "?", minutes, answer[0, 200])
    { verdict: verdict, minutes: minutes }
  end
end

right = rows.count { |r| r[:verdict].start_with?("right") }
wrong = rows.count { |r| r[:verdict].start_with?("WRONG") }
minutes = rows.map { |r| r[:minutes] }.sort
puts format("%d commits, %s (%s, cpus %s), %d bisections: right %d, wrong %d, undecided %d; minutes a bisection %.1f-%.1f (median %.1f)",
            COMMITS, MODE, ENV.fetch("SLOWDOWN", "small"), ENV.fetch("CPUS", "auto"), RUNS, right, wrong, RUNS - right - wrong,
            minutes.first, minutes.last, minutes[minutes.size / 2])
