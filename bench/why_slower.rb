# frozen_string_literal: true

# Does run --profile name the method a commit made slower? Issue 43's walk
# of the commit gate, repeated: a copy of the built-in arena (apps/arena) in
# its own temporary git repository, the base commit, and one commit that
# adds `fib(n - 5)` to /fibonacci/N's work (about 1/11 more calls of
# Fibonacci.fib, ~9% of the request). Each run is a real
#
#   rackbench run --app REPO --ref BASE --ref CHANGE -s "puma x1:2" -e /fibonacci/25 -c 2
#                 --cpus auto --decide --profile -d 2 --max-rounds ROUNDS
#
# and the bench reads the run's stored profiles as `report` does
# (Stats::Attribution over profiles.jsonl): was the pair decided, which
# frame is named first, and is it Fibonacci.fib. The report shows the
# attribution under a decided pair only; the bench reads it for an
# undecided one too (counted apart), since a frame's CPU per request can be
# decided where req/s on a busy machine is not. Then as many A/A runs (the base under two
# names, `--ref BASE --ref BASE~0`), where any frame named is a false one:
# they are read from every pair's attribution, decided or not.
#
#   bundle exec ruby -Ilib bench/why_slower.rb [RUNS] [ROUNDS]   (defaults 5 12)
#
# Limits: each run takes 1-4 minutes on 2 cores; a machine shared with other
# work widens every interval (undecided runs name nothing: counted apart).

require "fileutils"
require "open3"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/store/run_dir"
require "rackbench/report/dataset"
require "rackbench/stats/attribution_text"

runs = Integer(ARGV[0] || 5)
rounds = Integer(ARGV[1] || 12)
ARENA = File.expand_path("../apps/arena", __dir__)
TARGET = "Fibonacci.fib"

def git(dir, *args)
  out, status = Open3.capture2e("git", "-c", "user.email=bench@rackbench", "-c", "user.name=bench", *args, chdir: dir)
  raise "git #{args.join(' ')}: #{out}" unless status.success?

  out.strip
end

def run(repo, refs, out, rounds)
  argv = ["run", "--app", repo, *refs.flat_map { |r| ["--ref", r] }, "-s", "puma x1:2", "-e", "/fibonacci/25", "-c", "2",
          "--cpus", "auto", "--decide", "--profile", "-d", "2", "--max-rounds", rounds.to_s, "-q", "-o", out]
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  status = Rackbench::CLI.call(argv, out: StringIO.new, err: err = StringIO.new, env: ENV.to_h)
  raise "rackbench exited #{status}: #{err.string}" if status == 2

  data = Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(out))
  [data, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started]
end

# Every pair's attribution (decided or not: an A/A pair is rarely decided).
def all_attributions(data)
  times = Rackbench::Stats::FrameTimes.of(Rackbench::Store::Profiles.new(data.path).read)
  data.decisions.entries.select { |e| e.metric == "rps" }.filter_map { |e| Rackbench::Stats::Attribution.for(e, times) }
end

Dir.mktmpdir("rackbench-why-slower") do |tmp|
  repo = File.join(tmp, "app")
  FileUtils.cp_r(ARENA, repo)
  git(repo, "init", "-q", "-b", "main", ".")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "base")
  fib = File.join(repo, "fibonacci.rb")
  File.write(fib, File.read(fib).sub("value = fib(n)\n", "value = fib(n)\n          fib(n - 5) if n >= 5 # the change: ~1/11 more work\n"))
  git(repo, "commit", "-qam", "extra work in /fibonacci")
  base = git(repo, "rev-parse", "--short=7", "main~1")
  change = git(repo, "rev-parse", "--short=7", "main")
  firsts = [] # [decided?, the frame named first]
  runs.times do |i|
    data, secs = run(repo, [base, change], File.join(tmp, "change-#{i}"), rounds)
    attribution = all_attributions(data).first
    firsts << [attribution&.entry&.decided?, attribution&.named&.first&.name.to_s]
    puts "change run #{i + 1}: #{(secs / 60).round(1)} min; #{attribution ? Rackbench::Stats::AttributionText.line(attribution) : 'no pair'}"
    puts "  #{Rackbench::Stats::AttributionText.check(attribution)}" if attribution
  end
  decided = firsts.select(&:first)
  puts "change: #{TARGET} named first in #{firsts.count { |_, f| f.end_with?(TARGET) }} of #{runs} runs; " \
       "the pair decided in #{decided.size}, #{TARGET} first in #{decided.count { |_, f| f.end_with?(TARGET) }} of those"
  false_runs = 0
  runs.times do |i|
    data, secs = run(repo, [base, "#{base}~0"], File.join(tmp, "aa-#{i}"), rounds)
    named = all_attributions(data).flat_map(&:named)
    false_runs += 1 if named.any?
    puts "A/A run #{i + 1}: #{(secs / 60).round(1)} min; #{named.empty? ? 'nothing named' : "named: #{named.map { |c|
 "#{c.name} #{c.change.round(3)} ms" }.join(', ')}"}"
  end
  puts "A/A: nothing named beyond noise in #{runs - false_runs} of #{runs} runs"
end
