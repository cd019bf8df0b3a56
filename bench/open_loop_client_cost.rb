# frozen_string_literal: true

# What the open-loop client costs: wrk's CPU time per request with
# wrk/open_loop.lua (Lua hooks on every request and response, one thread per
# connection) against closed-loop wrk with wrk/report.lua (no per-request Lua),
# both against a real Puma (single mode, 4 threads) on the arena's /hello.
#
#   bundle exec ruby -Ilib bench/open_loop_client_cost.rb [RATES] [SECONDS]
#   e.g. bench/open_loop_client_cost.rb 100,500,2000 2.75
#
# Method: wrk is the only child rackbench reaps during a run (the server is
# reaped at the very end), so the growth of this process's reaped-children
# CPU time (getrusage RUSAGE_CHILDREN, via Process.times) over one engine
# run is wrk's user + system time. Each open-loop run (connections by the
# engine's rule, R x 10 ms) is paired with a closed-loop run over as many
# connections, lasting the whole seconds that give at least as many
# requests at the closed-loop rate measured by a 1 s calibration run; the
# table shows both request counts and CPU microseconds per request.
# Limits: one run per cell (no spread); both clients share the machine's
# cores with Puma, so on a small machine the closed loop's rate (and its
# CPU per request) depends on how fast Puma answers; per-request cost of the
# open loop includes its fixed start-up (Lua states, 120 KB of histogram per
# thread), which dominates at low rates.

require "tmpdir"
require "rackbench/load"
require "rackbench/server"
require "rackbench/setup"
require "rackbench/ports"
require "rackbench/workload/arena"

RATES = ARGV.fetch(0, "100,500,2000").split(",").map { |r| Float(r) }
SECONDS = Float(ARGV.fetch(1, 2.75))

def children_cpu
  t = Process.times
  t.cutime + t.cstime
end

# [result, wrk CPU seconds]
def measured
  before = children_cpu
  result = yield
  [result, children_cpu - before]
end

def us_per_request(cpu, result)
  result.requests.positive? ? 1e6 * cpu / result.requests : Float::NAN
end

Dir.mktmpdir("rackbench-bench") do |dir|
  open_engine = Rackbench::Load::WrkOpenLoop.new
  closed_engine = Rackbench::Load::Wrk.new
  abort "wrk is not installed: run bin/setup" unless open_engine.version && closed_engine.version # probes reaped now

  instance = Rackbench::Server::Instance.new(
    adapter: Rackbench::Server.adapter("puma"), setup: Rackbench::Setup.parse("puma x1:4"),
    app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free, dir: dir,
    ready_path: Rackbench::Workload::Arena::READY_PATH
  ).start
  begin
    url = instance.url("/hello")
    log = File.join(dir, "wrk.log")
    calibration, = measured { closed_engine.run(url: url, concurrency: 2, duration: 1, log_path: log) }
    closed_rps = calibration.rps
    puts format("wrk %s, Puma x1:4 on /hello, %d cores; closed-loop calibration: %.0f req/s over 2 connections",
                open_engine.version, Etc.nprocessors, closed_rps)
    puts format("%-9s %5s | %-27s | %-27s | %s", "rate", "conns", "open loop: requests  µs CPU/req",
                "closed loop: requests  µs CPU/req", "open/closed")
    RATES.each do |rate|
      open, open_cpu = measured { open_engine.run(url: url, rate: rate, duration: SECONDS, log_path: log) }
      seconds = (open.requests / closed_rps).ceil.clamp(1, 10)
      closed, closed_cpu = measured do
        closed_engine.run(url: url, concurrency: open.connections, duration: seconds, log_path: log)
      end
      open_us = us_per_request(open_cpu, open)
      closed_us = us_per_request(closed_cpu, closed)
      flag = open.valid? ? "" : "  (open loop invalid: #{open.invalid_reason})"
      puts format("%-9s %5d | %12d %14.1f | %12d %14.1f | %.2fx%s", "#{rate.round(1)}/s", open.connections,
                  open.requests, open_us, closed.requests, closed_us, open_us / closed_us, flag)
    end
  ensure
    instance.stop
  end
end
