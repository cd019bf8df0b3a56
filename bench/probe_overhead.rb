# frozen_string_literal: true

# What does --probe cost? req/s of an app with and without rackbench's
# in-process probe in front (Workload::ProbeWrapper: the wrapper config.ru,
# the probe's four clock reads and one mutex per request, and in a Rails app
# its ActiveSupport::Notifications subscribers), in interleaved paired rounds.
#
#   bundle exec ruby -Ilib bench/probe_overhead.rb [ROUNDS] [SECONDS]   (defaults 10 2)
#
# Apps, each on puma x2:5 at c = 16 (wrk, closed loop):
# - a Rack app answering "hello" at once: the cheapest request there is, so
#   the probe's cost is the largest share of it (the worst case);
# - the built-in Rails app's /hello (routing and a controller) and
#   /template-render (a view: its render events go through the probe's
#   subscriber), run as a user's app would be.
# Method: both servers booted once (plain, and behind the wrapper with
# RACKBENCH_PROBE_DIR set), warmed up, then per round one trial of each in
# alternating order (ABBA); the ratio probed / plain per round, decided with
# Stats::Decision (paired: Student's t on the per-round log ratios, 95%) at a
# 2% margin: "equivalent" means the probe costs less than 2% of req/s. Beside
# req/s, the server's CPU per request (utime + stime of its processes from
# /proc over the trial, 10 ms ticks, over the requests) decided the same way,
# and first the probe's own cost per call in this process (a Rack app that
# returns at once, called 300,000 times with and without it): CPU a loaded
# machine shared with other work perturbs less than req/s.
#
# Measured on this repository's 2-vCPU VM, shared with other jobs (12 rounds
# of 2 s): the probe's own cost 4.1 us per request; the "hello" app (12,000
# req/s plain) 0.81x req/s (95% CI 0.73-0.90, decided slower) and 1.20x CPU
# per request (+25 us; CI 1.15-1.26); the Rails app's /hello (1,200 req/s)
# 1.19x (CI 0.92-1.53) and /template-render (79 req/s) 1.03x (CI 0.92-1.17),
# both undecided at 2%: within this machine's noise. Hence --probe is off
# by default (README, docs/running.md).

require "tmpdir"
require "fileutils"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/load"
require "rackbench/workload/app"
require "rackbench/workload/probe_wrapper"
require "rackbench/stats/decision"

rounds = Integer(ARGV[0] || 10)
seconds = Integer(ARGV[1] || 2)
MARGIN = 0.02

def boot(app, dir, env)
  setup = Rackbench::Setup.parse("puma x2:5")
  Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma", app: app), setup: setup,
                                                app: app.config_ru, port: Rackbench::Ports.free, dir: dir,
                                                env: app.env.merge(env), boot_timeout: 120).start
end

# CPU seconds of the server's processes so far (utime + stime).
def cpu_s(instance)
  instance.processes.sum do |e|
    fields = File.read("/proc/#{e.pid}/stat").split(") ").last.split
    (fields[11].to_i + fields[12].to_i) / 100.0
  rescue SystemCallError
    0.0
  end
end

# Microseconds per call of app, n calls (monotonic clock).
def per_call_us(app, n = 300_000)
  t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  n.times { app.call({}) }
  (Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0) / n * 1e6
end

# The decision in words; cost: the metric is a cost (CPU per request), where higher is worse.
def words(outcome, cost: false)
  { higher: cost ? "costlier with the probe" : "faster with the probe",
    lower: cost ? "cheaper with the probe" : "slower with the probe",
    equivalent: "equivalent", undecided: "undecided" }.fetch(outcome)
end

Dir.mktmpdir("rackbench-probe-overhead") do |tmp|
  require Rackbench::Workload::ProbeWrapper::PROBE
  bare = ->(_env) { [200, {}, ["hello"]] }
  probe = Rackbench::Workload::Arena::Probe.new(bare, tmp)
  costs = Array.new(3) { per_call_us(probe) - per_call_us(bare) }
  probe.close
  printf("the probe's own cost: %.2f us per request (median of 3 x 300,000 calls in this process)\n", costs.sort[1])
  hello = File.join(tmp, "hello", "config.ru")
  FileUtils.mkdir_p(File.dirname(hello))
  File.write(hello, "run ->(_env) { [200, { \"content-type\" => \"text/plain\", \"content-length\" => \"5\" }, [\"hello\"]] }\n")
  engine = Rackbench::Load.engine("wrk")
  cases = [[hello, %w[/]], ["rails", %w[/hello /template-render]]]
  cases.each do |path, endpoints|
    app = Rackbench::Workload::App.resolve(path == "rails" ? Rackbench::Workload::App::RAILS_APP : path)
    probe_dir = File.join(tmp, "probe-#{File.basename(app.root)}")
    FileUtils.mkdir_p(probe_dir)
    wrapped = Rackbench::Workload::ProbeWrapper.write(app, File.join(tmp, "logs-#{File.basename(app.root)}"))
    plain = boot(app, File.join(tmp, "plain-#{File.basename(app.root)}"), {})
    probed = boot(wrapped, File.join(tmp, "probed-#{File.basename(app.root)}"), "RACKBENCH_PROBE_DIR" => probe_dir)
    begin
      endpoints.each do |endpoint|
        # [req/s, server CPU us per request]
        run = lambda do |server, i|
          c0 = cpu_s(server)
          r = engine.run(url: server.url(endpoint), concurrency: 16, duration: seconds, log_path: File.join(tmp, "#{i}.log"))
          [r.rps, 1e6 * (cpu_s(server) - c0) / r.requests]
        end
        [plain, probed].each { |s| run.call(s, "warm") }
        a = []
        b = []
        rounds.times do |i|
          if i.even?
            a << run.call(plain, i)
            b << run.call(probed, i)
          else
            b << run.call(probed, i)
            a << run.call(plain, i)
          end
          printf("%-8s %-17s round %2d: plain %7.0f req/s %6.0f us CPU, probed %7.0f req/s %6.0f us CPU (ratio %.3f)\n",
                 File.basename(app.root), endpoint, i + 1, *a.last, *b.last, b.last[0] / a.last[0])
        end
        [[0, "req/s"], [1, "CPU per request"]].each do |index, name|
          d = Rackbench::Stats::Decision.of(a.map { |x| x[index] }, b.map { |x| x[index] }, paired: true, margin: MARGIN)
          printf("%-8s %-17s %-15s probed/plain %.3f, 95%% CI %.3f-%.3f over %d rounds (plain %.0f): %s at a %d%% margin\n",
                 File.basename(app.root), endpoint, name, d.ratio, d.ci_low, d.ci_high, rounds,
                 a.sum { |x| x[index] } / a.size, words(d.outcome, cost: index == 1), (MARGIN * 100).round)
        end
      end
    ensure
      plain.stop
      probed.stop
    end
  end
end
