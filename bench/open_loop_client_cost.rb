# frozen_string_literal: true

# What the open-loop client costs: wrk's CPU time per request with
# wrk/open_loop.lua (Lua hooks on every request and response, one thread per
# connection) against closed-loop wrk with wrk/report.lua (no per-request Lua),
# both against a real Puma (single mode, 4 threads) on the arena's /hello.
#
#   bundle exec ruby -Ilib bench/open_loop_client_cost.rb [RATES] [SECONDS]
#   e.g. bench/open_loop_client_cost.rb 100,500,2000 2.75
#
# Method: wrk is the only child this process reaps during a run (the server
# is reaped at the very end), so the growth of the reaped-children CPU time
# (getrusage RUSAGE_CHILDREN, via Process.times) over one run is wrk's user +
# system time. For each rate R:
# - open loop: WrkOpenLoop at R for SECONDS, connections by its rule (R x 10 ms);
# - paced baseline: the same threads and connections, each sending every
#   N/R seconds through a delay()-only script (no timing, no histograms),
#   to split the cost of pacing (a timer wake-up per request) from the cost
#   of open_loop.lua's own work;
# - closed loop: Wrk over as many connections at full speed, for the whole
#   seconds that give at least as many requests at the closed-loop rate of a
#   1 s calibration run.
# Limits: one run per cell (no spread; other load on the machine moves the
# figures); all clients share the cores with Puma; per-request figures
# include each run's fixed start-up cost (threads, Lua states), which
# dominates at low rates.

require "etc"
require "tmpdir"
require "rackbench/load"
require "rackbench/process_control/child"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/arena"

RATES = ARGV.fetch(0, "100,500,2000").split(",").map { |r| Float(r) }
SECONDS = Float(ARGV.fetch(1, 2.75))
PACED_LUA = <<~LUA
  local interval_ms
  function init(args) interval_ms = math.floor(tonumber(args[1])) end
  function delay() return interval_ms end
  function done(summary) io.write("PACED_REQUESTS ", string.format("%.0f", summary.requests), "\\n") end
LUA

def children_cpu
  t = Process.times
  t.cutime + t.cstime
end

# [what the block returns, wrk CPU seconds]
def measured
  before = children_cpu
  result = yield
  [result, children_cpu - before]
end

# Requests of a paced (delay-only) wrk run: n threads x 1 connection, each every n/rate s.
def paced_run(dir, url, rate, connections)
  script = File.join(dir, "paced.lua")
  File.write(script, PACED_LUA)
  log = File.join(dir, "paced.log")
  File.write(log, "")
  argv = ["wrk", "-t", connections.to_s, "-c", connections.to_s, "-d", "#{(SECONDS + 0.25).ceil}s", "-s", script,
          url, (1000.0 * connections / rate).to_s]
  child = Rackbench::ProcessControl::Child.spawn(argv, log_path: log)
  begin
    child.wait(SECONDS + 15) or abort "paced wrk did not finish"
  ensure
    child.stop("TERM", timeout: 2)
  end
  Integer(File.read(log)[/^PACED_REQUESTS (\d+)$/, 1])
end

def per_request_us(cpu, requests)
  requests.positive? ? 1e6 * cpu / requests : Float::NAN
end

Dir.mktmpdir("rackbench-bench") do |dir|
  open_engine = Rackbench::Load::WrkOpenLoop.new
  closed_engine = Rackbench::Load::Wrk.new
  abort "wrk is not installed: run bin/setup" unless open_engine.version && closed_engine.version # probes reaped now

  instance = Rackbench::ProcessControl::ServerInstance.new(
    adapter: Rackbench::Server.adapter("puma"), setup: Rackbench::Setup.parse("puma x1:4"),
    app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free, dir: dir,
    ready_path: Rackbench::Workload::Arena::READY_PATH
  ).start
  begin
    url = instance.url("/hello")
    log = File.join(dir, "wrk.log")
    calibration, = measured { closed_engine.run(url: url, concurrency: 2, duration: 1, log_path: log) }
    closed_rps = calibration.rps
    puts format("wrk %s, Puma x1:4 on /hello, %d cores, %.2f s per open-loop run; closed-loop calibration: " \
                "%.0f req/s over 2 connections", open_engine.version, Etc.nprocessors, SECONDS, closed_rps)
    puts "µs of wrk CPU per request (requests in brackets)"
    puts format("%-8s %5s  %-17s %-17s %-17s %-12s %s", "rate", "conns", "open loop", "paced baseline",
                "closed loop", "open/closed", "open/paced")
    RATES.each do |rate|
      open, open_cpu = measured { open_engine.run(url: url, rate: rate, duration: SECONDS, log_path: log) }
      n = open.connections
      paced, paced_cpu = measured { paced_run(dir, url, rate, n) }
      seconds = (open.requests / closed_rps).ceil.clamp(1, 10)
      closed, closed_cpu = measured { closed_engine.run(url: url, concurrency: n, duration: seconds, log_path: log) }
      open_us = per_request_us(open_cpu, open.requests)
      paced_us = per_request_us(paced_cpu, paced)
      closed_us = per_request_us(closed_cpu, closed.requests)
      cell = ->(us, count) { format("%7.1f (%6d)", us, count) }
      flag = open.valid? ? "" : "  open loop invalid: #{open.invalid_reason}"
      puts format("%-8s %5d  %-17s %-17s %-17s %-12s %s%s", "#{rate.round(1)}/s", n, cell.call(open_us, open.requests),
                  cell.call(paced_us, paced), cell.call(closed_us, closed.requests),
                  format("%.2fx", open_us / closed_us), format("%.2fx", open_us / paced_us), flag)
    end
  ensure
    instance.stop
  end
end
