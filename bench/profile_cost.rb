# frozen_string_literal: true

# What does --profile cost on req/s? The built-in arena on puma x2:1, booted
# twice as a run boots it (Runtime::Flags' RUBYOPT), once plain and once with
# the in-server profile loaded, each trial of the profiled one profiled as
# `run --profile` profiles it (Sampling::Profiler: start, load, stop, collect).
#
#   bundle exec ruby -Ilib bench/profile_cost.rb [ROUNDS] [SECONDS]   (defaults 10 2)
#
# Method: both servers booted once and warmed up, then per round one trial of
# each in alternating order (ABBA), wrk at c = 2; the ratio profiled / plain
# per round decided with Stats::Decision (paired: Student's t on the
# per-round log ratios, 95%) at a 2% margin. Endpoints: /fibonacci/25 (all
# Ruby CPU: every sample's cost lands in the request) and /hello (the
# cheapest request: the watcher thread and signals the largest share).
# Limits: a 2-core machine shared with other work; both servers share the
# cores, so one round's two trials see different neighbours: the paired
# ratio, not either req/s, is the figure.

require "tmpdir"
require "fileutils"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/load"
require "rackbench/workload/app"
require "rackbench/runtime/flags"
require "rackbench/sampling/profiler"
require "rackbench/stats/decision"

rounds = Integer(ARGV[0] || 10)
seconds = Integer(ARGV[1] || 2)
MARGIN = 0.02
SETUP = Rackbench::Setup.parse("puma x2:1")

def boot(app, dir, profile)
  FileUtils.mkdir_p(dir)
  env = Rackbench::Runtime::Flags.env(SETUP, dir: dir, rubyopt: ENV.fetch("RUBYOPT", nil), profile: profile)
  Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma", app: app), setup: SETUP,
                                                app: app.config_ru, port: Rackbench::Ports.free, dir: dir,
                                                env: app.env.merge(env), boot_timeout: 120).start
end

Dir.mktmpdir("rackbench-profile-cost") do |tmp|
  app = Rackbench::Workload::App.arena
  engine = Rackbench::Load.engine("wrk")
  plain = boot(app, File.join(tmp, "plain"), false)
  profiled = boot(app, File.join(tmp, "profiled"), true)
  begin
    %w[/fibonacci/25 /hello].each do |endpoint|
      trial = lambda do |server, i|
        profiler = server.equal?(profiled) ? Rackbench::Sampling::Profiler.new(server.dir, pids: -> { server.workers.map(&:pid) }, root: app.root) : nil
        profiler&.start
        r = engine.run(url: server.url(endpoint), concurrency: 2, duration: seconds, log_path: File.join(tmp, "#{i}.log"))
        profiler&.stop
        got = profiler&.collect
        [r.rps, got && got["processes"].sum { |p| p["samples"].to_i }]
      end
      [plain, profiled].each { |s| trial.call(s, "warm") }
      a = []
      b = []
      rounds.times do |i|
        pair = i.even? ? [trial.call(plain, i), trial.call(profiled, i)] : [trial.call(profiled, i), trial.call(plain, i)].reverse
        a << pair[0][0]
        b << pair[1][0]
        printf("%-13s round %2d: plain %7.0f req/s, profiled %7.0f req/s (%d samples), ratio %.3f\n",
               endpoint, i + 1, a.last, b.last, pair[1][1].to_i, b.last / a.last)
      end
      d = Rackbench::Stats::Decision.of(a, b, paired: true, margin: MARGIN)
      printf("%-13s profiled/plain req/s %.3f, 95%% CI %.3f-%.3f over %d rounds (plain %.0f req/s): %s at a %d%% margin\n",
             endpoint, d.ratio, d.ci_low, d.ci_high, rounds, a.sum / a.size, d.outcome, (MARGIN * 100).round)
    end
  ensure
    plain.stop
    profiled.stop
  end
end
