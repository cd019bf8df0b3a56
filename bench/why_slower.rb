# frozen_string_literal: true

# Does run --profile name what a commit made slower? Issue 43's proof,
# on held-out apps the bench makes in a temporary git repository (the base
# commit, then one commit with the change), one CASE at a time:
#
#   fib     a copy of apps/arena; the change adds `fib(n - 5)` to
#           /fibonacci/N's work (about 1/11 more calls of Fibonacci.fib,
#           ~9% of the request): is Fibonacci.fib the frame named first?
#   alloc   a copy of apps/arena; the change makes /template-render build
#           20,000 more short strings a request ("x#{i}": two objects an
#           iteration, i.to_s and the string): is "objects allocated"
#           named, up by about 40,000 per request?
#   nplus1  a copy of apps/rails (SQLite, stackprof added to its bundle
#           from rackbench's own gem cache, offline); the change makes
#           /articles read each of its 10 articles again (Article.find in
#           the loop: an N+1): is "SQL queries" named, up by 10 per request?
#
# Each run is a real
#
#   rackbench run --app REPO --ref BASE --ref CHANGE -s "puma x1:2" -e ENDPOINT -c 2
#                 --cpus auto --decide --profile -d 2 --max-rounds ROUNDS
#
# and the bench reads the run's stored profiles as `report` does
# (Stats::Attribution over profiles.jsonl): was the pair decided, and
# what is named. The report shows the attribution under a decided pair
# only; the bench reads it for an undecided one too (counted apart),
# since a frame's CPU per request can be decided where req/s on a busy
# machine is not. Then as many A/A runs (the base under two names,
# `--ref BASE --ref BASE~0`), where anything named is a false discovery:
# read from every pair's attribution, decided or not.
#
#   [CASE=fib|alloc|nplus1] [AA=N] bundle exec ruby -Ilib bench/why_slower.rb [RUNS] [ROUNDS]   (defaults fib 5 12)
#
# AA: how many A/A runs follow (default RUNS; AA=0: the change runs alone,
# when another case's A/A runs are the proof's).
#
# Limits: each run takes 1-4 minutes on 2 cores (Rails boots slower); a
# machine shared with other work widens every interval (undecided runs
# name nothing: counted apart).

require "bundler"
require "fileutils"
require "open3"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/store/run_dir"
require "rackbench/report/dataset"
require "rackbench/stats/attribution_text"

$stdout.sync = true
runs = Integer(ARGV[0] || 5)
rounds = Integer(ARGV[1] || 12)
aa_runs = Integer(ENV.fetch("AA", runs))
CASE = ENV.fetch("CASE", "fib")
APPS = File.expand_path("../apps", __dir__)
RAILS_BUNDLE = File.join(APPS, "rails", "vendor", "bundle")
GEM_CACHE = File.expand_path("../vendor/bundle/ruby/#{RbConfig::CONFIG['ruby_version']}/cache", __dir__)

def git(dir, *args)
  out, status = Open3.capture2e("git", "-c", "user.email=bench@rackbench", "-c", "user.name=bench", *args, chdir: dir)
  raise "git #{args.join(' ')}: #{out}" unless status.success?

  out.strip
end

def edit(path, from, to)
  text = File.read(path)
  raise "#{path}: #{from.inspect} not found" unless text.include?(from)

  File.write(path, text.sub(from, to))
end

def arena_copy(root)
  FileUtils.cp_r(File.join(APPS, "arena"), File.join(root, "app"))
  File.join(root, "app")
end

# Each case: the app made and committed under root (returns the --app path
# and the endpoint), the change committed on top, and what a run must name:
# [kind, name, expected change per request or nil].
CASES = {
  "fib" => {
    endpoint: "/fibonacci/25", want: ["frame", "Fibonacci.fib", nil],
    make: ->(root) { arena_copy(root) },
    change: lambda do |app|
      edit(File.join(app, "fibonacci.rb"), "value = fib(n)\n", "value = fib(n)\n          fib(n - 5) if n >= 5 # the change: ~1/11 more work\n")
    end
  },
  "alloc" => {
    endpoint: "/template-render", want: ["counter", "alloc", 40_000], # two strings an iteration: i.to_s and "x#{i}"
    make: ->(root) { arena_copy(root) },
    change: lambda do |app|
      edit(File.join(app, "render.rb"), "        def self.call(_env)\n",
           "        def self.call(_env)\n          20_000.times { |i| \"x\#{i}\" } # the change: 20,000 more strings a request\n")
    end
  },
  "nplus1" => {
    endpoint: "/articles", want: ["counter", "sql_count", 10],
    make: lambda do |root|
      app = File.join(root, "rails")
      FileUtils.mkdir_p(app)
      Dir.children(File.join(APPS, "rails")).reject { |f| %w[vendor .bundle].include?(f) }.each { |f| FileUtils.cp_r(File.join(APPS, "rails", f), app) }
      FileUtils.cp_r(File.join(APPS, "arena"), root) # config/application.rb loads ../../arena's files
      File.write(File.join(app, ".gitignore"), "/log/\n/tmp/\n")
      edit(File.join(app, "Gemfile"), "gem \"sqlite3\"", "gem \"stackprof\", \"0.2.28\"\ngem \"sqlite3\"")
      FileUtils.mkdir_p(File.join(app, "vendor", "cache"))
      FileUtils.cp(File.join(GEM_CACHE, "stackprof-0.2.28.gem"), File.join(app, "vendor", "cache"))
      Bundler.with_unbundled_env do
        [%w[config set --local path] + [RAILS_BUNDLE], %w[install --local --quiet]].each do |args|
          out, st = Open3.capture2e("bundle", *args, chdir: app)
          raise "bundle #{args.join(' ')}: #{out}" unless st.success?
        end
      end
      app
    end,
    change: lambda do |app|
      edit(File.join(app, "app", "views", "articles", "index.html.erb"), "<% @articles.each do |article| %>",
           "<% @articles.each do |listed| %>\n      <% article = Article.find(listed.id) # the change: an N+1 %>")
    end
  }
}.freeze
TEST = CASES.fetch(CASE) { abort "CASE: one of #{CASES.keys.join(', ')}" }

def run(app, refs, out, rounds)
  setup = File.exist?(File.join(app, "config", "database.yml")) ? ["--no-setup-cmd"] : [] # the database is committed
  argv = ["run", "--app", app, *refs.flat_map { |r| ["--ref", r] }, "-s", "puma x1:2", "-e", TEST[:endpoint], "-c", "2",
          "--cpus", "auto", "--decide", "--profile", "-d", "2", "--max-rounds", rounds.to_s, *setup, "-q", "-o", out]
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  status = Rackbench::CLI.call(argv, out: StringIO.new, err: err = StringIO.new, env: ENV.to_h)
  raise "rackbench exited #{status}: #{err.string}" if status == 2
  abort "interrupted (rackbench exited #{status}): the bench stops; the runs so far are above" if status > 128 # a signal

  data = Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(out))
  [data, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started]
end

# Every pair's attribution (decided or not: an A/A pair is rarely decided).
def all_attributions(data)
  times = Rackbench::Stats::FrameTimes.of(Rackbench::Store::Profiles.new(data.path).read)
  data.decisions.entries.select { |e| e.metric == "rps" }.filter_map { |e| Rackbench::Stats::Attribution.for(e, times) }
end

# What a run named, as the case asks: the first frame named, or the
# counter if it was named (decided) with its change per request.
def found(attribution)
  kind, name, = TEST[:want]
  return attribution&.named&.first&.name.to_s if kind == "frame"

  counter = attribution&.counters&.find { |c| c.name == name && c.decided }
  counter && counter.change
end

def hit?(value)
  kind, name, expected = TEST[:want]
  return value.to_s.end_with?(name) if kind == "frame"
  return false unless value

  (value - expected).abs <= 0.1 * expected
end

Dir.mktmpdir("rackbench-why-slower") do |tmp|
  repo = File.join(tmp, "repo")
  runs_dir = File.join(tmp, "runs") # outside the repository: its work tree stays clean
  FileUtils.mkdir_p([repo, runs_dir])
  app = TEST[:make].call(repo)
  git(repo, "init", "-q", "-b", "main", ".")
  git(repo, "add", ".")
  git(repo, "commit", "-qm", "base")
  TEST[:change].call(app)
  git(repo, "commit", "-qam", "the change")
  base = git(repo, "rev-parse", "--short=7", "main~1")
  change = git(repo, "rev-parse", "--short=7", "main")
  kind, name, expected = TEST[:want]
  puts "case #{CASE}: #{TEST[:endpoint]}, want the #{kind} #{name}#{" (#{expected} per request)" if expected} named; #{runs} runs of #{rounds} rounds at most"
  results = [] # [decided?, what was found]
  runs.times do |i|
    data, secs = run(app, [base, change], File.join(runs_dir, "change-#{i}"), rounds)
    attribution = all_attributions(data).first
    results << [attribution&.entry&.decided?, found(attribution)]
    puts "change run #{i + 1}: #{(secs / 60).round(1)} min; #{attribution ? Rackbench::Stats::AttributionText.line(attribution) : 'no pair'}"
    puts "  #{Rackbench::Stats::AttributionText.check(attribution)}" if attribution
  end
  decided = results.select(&:first)
  puts "change: #{name} named in #{results.count { |_, f| hit?(f) }} of #{runs} runs; " \
       "the pair decided in #{decided.size}, #{name} named in #{decided.count { |_, f| hit?(f) }} of those"
  puts "  its change per request: #{results.map { |_, f| f.is_a?(Numeric) ? f.round(2) : '-' }.join(', ')}" unless kind == "frame"
  false_runs = 0
  aa_runs.times do |i|
    data, secs = run(app, [base, "#{base}~0"], File.join(runs_dir, "aa-#{i}"), rounds)
    attributions = all_attributions(data)
    named = attributions.flat_map(&:named) + attributions.flat_map { |a| a.counters.select(&:decided) }
    false_runs += 1 if named.any?
    said = named.empty? ? "nothing named" : "named: #{named.map { |c| "#{c.name} #{c.change.round(3)}" }.join(', ')}"
    puts "A/A run #{i + 1}: #{(secs / 60).round(1)} min; #{said}"
  end
  puts "A/A: nothing named beyond noise in #{aa_runs - false_runs} of #{aa_runs} runs" if aa_runs.positive?
end
