# frozen_string_literal: true

# Does `rackbench bisect` name the commit that slowed a real third-party
# Rack app (issue 44, "Which commit")? The app is ruby-grape/grape-on-rack,
# a Grape API on Rack with Puma in its Gemfile, from a mirror of its
# repository (a git directory given as MIRROR). Its history is copied into
# a new repository at DIR, one commit per commit of its first-parent
# history (main as it was after each merge: the same tree, author, dates
# and message; a merge becomes one commit), from FROM to TO; after the
# commit INSERT_AFTER, one commit of ours is inserted that makes GET
# /api/ping do N more loop iterations (at the default N about 4x the
# request's own CPU: 60000 took 0.6 ms in-process here, the request about
# as long), and every later
# commit carries that line too (their trees are otherwise the real ones).
# Then, as a user would (install: the bundle into vendor/bundle, the
# Gemfile's source served through the gem server this machine's RubyGems
# uses when it is another, as a Bundler mirror):
#
#   cd DIR && bundle config set --local path vendor/bundle && bundle install
#   rackbench bisect --app DIR --good GOOD --bad main -e /api/ping -s "puma x2:5" EXTRA
#
# and the bench prints the commit the bisection named against the one
# inserted, its exit and its minutes.
#
#   bundle exec ruby -Ilib bench/bisect_real.rb MIRROR [DIR] [build|bisect|both] [-- EXTRA bisect options]
#   (defaults: DIR /tmp/gor, both; MIRROR e.g. the git directory of a clone
#   or mirror of ruby-grape/grape-on-rack)
#
# As run for docs/your-change.md ("Bisecting"), on 2026-11-29:
#
#   bundle exec ruby -Ilib bench/bisect_real.rb MIRROR /tmp/gor both -- --margin 50 --fetch-gems
#
# --fetch-gems: the user installed only the newest commit's gems; every
# commit in the stretch bumps one gem in Gemfile.lock, so each step's
# worktree installs its own (into vendor/bundle). --margin 50: on a busy
# 2-core machine a step cannot show two identical commits within 5%.
#
# The stretch: FROM 890fe26 (2022-06, "Upgraded to Ruby 3.1.1" merged) to
# TO a069ea7 (2024-10), 24 commits. Later locks need Ruby >= 3.2 (Rails 8's
# activesupport, Bundler 4); Puma enters the Gemfile at 03e03b7 (GOOD), so
# the bisection walks the 10 commits after it (with ours): each real one
# bumps a gem in Gemfile.lock (BUNDLED WITH 2.4.2, newer than Debian's
# Bundler 2.3.15). N: env SLOW_N (default 250000; its position:
# INSERT_AFTER, default b65fbee). KEEP_VENDOR=OLD_DIR reuses the
# vendor/bundle of an earlier build.

require "fileutils"
require "open3"
require "tmpdir"

$stdout.sync = true
args = ARGV.take_while { |a| a != "--" }
EXTRA = ARGV.drop_while { |a| a != "--" }.drop(1)
MIRROR = args[0] or abort "usage: bench/bisect_real.rb MIRROR [DIR] [build|bisect|both] [-- EXTRA bisect options]"
DIR = File.expand_path(args[1] || "/tmp/gor")
MODE = args[2] || "both"
FROM = ENV.fetch("FROM", "890fe26")
TO = ENV.fetch("TO", "a069ea7")
GOOD = ENV.fetch("GOOD", "03e03b7") # the first commit whose Gemfile names puma
INSERT_AFTER = ENV.fetch("INSERT_AFTER", "b65fbee")
SLOW_N = Integer(ENV.fetch("SLOW_N", "250000"))
PING = "api/ping.rb"
SLOWER = ["{ ping: 'pong' }", "i = 0\n      i += 1 while i < #{SLOW_N} # a slowdown to bisect (bench/bisect_real.rb)\n      { ping: 'pong' }"].freeze
SUBJECT = "Ping: count to #{SLOW_N} before answering"
ROOT = File.expand_path("..", __dir__)

def git(dir, *args, env: {})
  out, status = Open3.capture2e(env, "git", *args, chdir: dir)
  raise "git #{args.join(' ')} (in #{dir}): #{out}" unless status.success?

  out.strip
end

def real_env(src, sha)
  fields = git(src, "log", "-1", "--format=%an%x00%ae%x00%aI%x00%cn%x00%ce%x00%cI", sha).split("\0")
  %w[GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_AUTHOR_DATE GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL GIT_COMMITTER_DATE].zip(fields).to_h
end

# The real tree of sha, with PING slowed when slow.
def tree(repo, sha, slow)
  real = git(repo, "rev-parse", "#{sha}^{tree}")
  return real unless slow

  text = git(repo, "show", "#{sha}:#{PING}") + "\n"
  abort "#{sha}: #{PING} does not answer { ping: 'pong' } as expected" unless text.include?(SLOWER.first)
  blob, = Open3.capture2("git", "hash-object", "-w", "--stdin", stdin_data: text.sub(*SLOWER), chdir: repo)
  index = File.join(repo, ".git", "bisect-real-index")
  env = { "GIT_INDEX_FILE" => index }
  git(repo, "read-tree", real, env: env)
  git(repo, "update-index", "--cacheinfo", "100644,#{blob.strip},#{PING}", env: env)
  git(repo, "write-tree", env: env).tap { File.delete(index) }
end

def commit(repo, tree, parent, message, env)
  parents = parent ? ["-p", parent] : []
  out, status = Open3.capture2e(env, "git", "commit-tree", tree, *parents, "-F", "-", stdin_data: message, chdir: repo)
  raise "commit-tree: #{out}" unless status.success?

  out.strip
end

def build
  abort "#{DIR} exists: remove it first (it is rebuilt from the mirror)" if File.exist?(DIR)
  git(Dir.pwd, "init", "-q", "-b", "main", DIR)
  # A vendor/bundle left by an earlier build (KEEP_VENDOR=DIR) saves the install.
  FileUtils.mv(File.join(ENV["KEEP_VENDOR"], "vendor"), DIR) if ENV["KEEP_VENDOR"]
  git(DIR, "fetch", "-q", "--no-tags", File.expand_path(MIRROR), "+HEAD:refs/real/head")
  shas = git(DIR, "rev-list", "--first-parent", "--reverse", "#{FROM}^..#{TO}").lines.map(&:strip)
  insert = git(DIR, "rev-parse", INSERT_AFTER)
  parent = nil
  slow = false
  copies = {}
  shas.each do |sha|
    parent = commit(DIR, tree(DIR, sha, slow), parent, git(DIR, "log", "-1", "--format=%B", sha), real_env(DIR, sha))
    copies[sha] = parent
    next unless sha == insert

    me = { "GIT_AUTHOR_NAME" => "rackbench", "GIT_AUTHOR_EMAIL" => "bench@rackbench", "GIT_COMMITTER_NAME" => "rackbench",
           "GIT_COMMITTER_EMAIL" => "bench@rackbench" }
    slow = true
    parent = commit(DIR, tree(DIR, sha, true), parent, "#{SUBJECT}\n\nInserted by rackbench's bench/bisect_real.rb.\n", me)
    copies[:slow] = parent
  end
  git(DIR, "update-ref", "refs/heads/main", parent)
  git(DIR, "update-ref", "-d", "refs/real/head")
  git(DIR, "checkout", "-q", "-f", "main")
  File.write(File.join(DIR, ".git", "bisect-real.txt"),
             "good #{copies.fetch(git(DIR, 'rev-parse', GOOD))}\nslow #{copies.fetch(:slow)}\n")
  puts "built #{DIR}: #{copies.size} commits (#{shas.size} of #{FROM}..#{TO} first-parent, and the slowdown), " \
       "good #{copies.fetch(git(DIR, 'rev-parse', GOOD))[0, 7]}, slowdown #{copies.fetch(:slow)[0, 7]}"
end

# The user's own setup, in the app's directory and a clean environment
# (none of this bench's bundle): gems into vendor/bundle, and the
# Gemfile's source served by the gem server this machine's RubyGems uses
# (its first source) when the two differ (a Bundler mirror, as a company
# mirror is set up). Bundler 2.3 installs the lock's 2.4.2 on the way.
def install
  clean = ENV.keys.grep(/\A(BUNDLE_|BUNDLER_|RUBYOPT\z|RUBYLIB\z|GEM_HOME\z|GEM_PATH\z)/).to_h { |k| [k, nil] }
  source = File.read(File.join(DIR, "Gemfile"))[/^source\s+['"]([^'"]+)['"]/, 1]
  served = Gem.sources.first.uri.to_s
  steps = [%w[bundle config set --local path vendor/bundle]]
  steps << ["bundle", "config", "set", "--local", "mirror.#{source}", served] if source && source.chomp("/") != served.chomp("/")
  steps << %w[bundle install]
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  steps.each do |argv|
    out, status = Open3.capture2e(clean, *argv, chdir: DIR)
    abort "#{argv.first(4).join(' ')} in #{DIR} failed:\n#{out.lines.last(15).join}" unless status.success?
  end
  puts format("bundle install in %s: %.0f s (vendor/bundle)", DIR, Process.clock_gettime(Process::CLOCK_MONOTONIC) - started)
end

def truth
  File.read(File.join(DIR, ".git", "bisect-real.txt")).lines.to_h { |l| l.split.then { |k, v| [k.to_sym, v] } }
end

def bisect
  t = truth
  out_dir = File.join(Dir.tmpdir, "bisect-real-#{Time.now.utc.strftime('%Y%m%dT%H%M%S')}")
  argv = [RbConfig.ruby, File.join(ROOT, "exe", "rackbench"), "bisect", "--app", DIR, "--good", t[:good][0, 7], "--bad", "main",
          "-e", "/api/ping", "-s", ENV.fetch("SETUP", "puma x2:5"), "-o", out_dir, *EXTRA]
  puts "$ #{argv.drop(1).map { |a| a.include?(' ') ? a.inspect : a }.join(' ')}"
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  out = +""
  status = Open3.popen2e(*argv, chdir: ROOT) do |_in, both, wait|
    both.each_line do |line|
      print line
      out << line
    end
    wait.value
  end
  minutes = (Process.clock_gettime(Process::CLOCK_MONOTONIC) - started) / 60
  named = out[/^(\h{7}) \(.*\) made \S+ slower by/, 1]
  verdict = if named.nil? then "no commit named"
            elsif t[:slow].start_with?(named) then "right"
            else "WRONG"
            end
  puts format("named %s, inserted %s: %s (exit %d, %.1f min, %s)", named || "-", t[:slow][0, 7], verdict, status.exitstatus,
              minutes, out_dir)
end

if %w[build both].include?(MODE)
  build
  install
end
bisect if %w[bisect both].include?(MODE)
