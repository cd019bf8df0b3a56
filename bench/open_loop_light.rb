# frozen_string_literal: true

# The open loop's client cost and its own latency, old sizing vs new, side
# by side in one run against a static nginx page (nginx answers a 13-byte
# file from memory in microseconds, so what latency remains is the client's).
#
#   bundle exec ruby -Ilib bench/open_loop_light.rb [RATE] [SECONDS] [ROUNDS] [FIXED_COUNTS]
#   e.g. bench/open_loop_light.rb 4000 5 2 8,16
#
# Method:
# - nginx (Debian's, 1 worker, access log off) serves /index.html on 127.0.0.1;
#   with --cpus-style separation when the machine has 2+ CPUs: nginx on the
#   first, wrk on the second (taskset), as `--cpus auto` would place them.
# - A 1 s open-loop warm-up at RATE (WrkOpenLoop's
#   default rule) gives the service-time p99 that Little's law sizes from.
# - For each rule, ROUNDS interleaved runs of SECONDS at RATE:
#     old: rate x 0.25 s connections (the 0.25 s default before sizing),
#     new: Load::OpenLoopSizing from the warm-up (rate x p99 x 2, at least 8);
#   wrk's CPU time is the growth of the reaped children's user + system time
#   (getrusage RUSAGE_CHILDREN through Process.times) over its run, divided
#   by the run's wall time: % of one core. p99 is open-loop latency (from
#   each planned send), the figure a user reads; the server's own share of
#   it is the nginx service time, microseconds.
# - The machine's foreign CPU (Sampling::Noise) is measured before the runs
#   and printed, since other processes move every figure here.
# Targets (issue 17): at 4,000 req/s the new rule costs <= 35% of one core
# and adds <= 2 ms at p99.

require "tmpdir"
require "rackbench/load"
require "rackbench/load/open_loop_sizing"
require "rackbench/process_control/child"
require "rackbench/process_control/affinity"
require "rackbench/ports"
require "rackbench/sampling/noise"
require "rackbench/process_control/http_probe"

RATE = Float(ARGV.fetch(0, 4000))
SECONDS = Float(ARGV.fetch(1, 5))
ROUNDS = Integer(ARGV.fetch(2, 2))
EXTRA = ARGV.fetch(3, "").split(",").map { |n| Integer(n) } # more fixed counts to compare, e.g. 8,16
NGINX = File.executable?("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx"
CPUS = Rackbench::ProcessControl::Affinity.usable_cpus
SPLIT = CPUS.size >= 2 ? Rackbench::ProcessControl::Affinity.auto(CPUS) : nil

def nginx_conf(dir, port)
  <<~CONF
    worker_processes 1;
    daemon off;
    pid #{dir}/nginx.pid;
    error_log #{dir}/error.log;
    events { worker_connections 4096; }
    http {
      access_log off;
      client_body_temp_path #{dir}/tmp;
      proxy_temp_path #{dir}/tmp;
      fastcgi_temp_path #{dir}/tmp;
      uwsgi_temp_path #{dir}/tmp;
      scgi_temp_path #{dir}/tmp;
      keepalive_requests 1000000;
      open_file_cache max=10;
      server { listen 127.0.0.1:#{port}; root #{dir}/www; }
    }
  CONF
end

def children_cpu
  t = Process.times
  t.cutime + t.cstime
end

def measured(engine, url, dir, **opts)
  log = File.join(dir, "wrk.log")
  before = children_cpu
  started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
  result = engine.run(url: url, rate: RATE, duration: SECONDS, log_path: log, **opts)
  wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - started
  [result, 100.0 * (children_cpu - before) / wall]
end

Dir.mktmpdir("rackbench-light") do |dir|
  FileUtils.mkdir_p(["#{dir}/www", "#{dir}/tmp"])
  File.write("#{dir}/www/index.html", "hello, world\n")
  port = Rackbench::Ports.free
  File.write("#{dir}/nginx.conf", nginx_conf(dir, port))
  nginx = Rackbench::ProcessControl::Child.spawn([NGINX, "-p", dir, "-c", "#{dir}/nginx.conf"],
                                                log_path: "#{dir}/nginx.log", cpus: SPLIT&.server)
  begin
    sleep 0.05 until Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", port, "/index.html")
    url = "http://127.0.0.1:#{port}/index.html"
    engine = Rackbench::Load::WrkOpenLoop.new
    engine.cpus = SPLIT&.client
    noise = Rackbench::Sampling::Noise.measure(window: 1.0)
    puts "machine: #{CPUS.size} CPUs; #{SPLIT ? "nginx on CPU #{SPLIT.to_h['server']}, wrk on CPU #{SPLIT.to_h['client']}" : 'shared'}"
    puts "before the runs: #{noise.describe}"
    warm = engine.run(url: url, rate: RATE, duration: 1, log_path: "#{dir}/warm.log")
    p99 = Rackbench::Load::OpenLoopSizing.warmup_p99(warm)
    sizing = Rackbench::Load::OpenLoopSizing.decide(rate: RATE, latency_ms: p99)
    old_n = Rackbench::Load::WrkOpenLoop.connections_for(rate: RATE, expected_latency_ms: 250)
    puts "warm-up: service p99 #{p99.round(3)} ms -> new rule: #{sizing.connections} connections " \
         "(needed #{sizing.needed}); old rule: #{old_n}"
    rules = { "old (rate x 0.25 s)" => old_n, "new (Little's law)" => sizing.connections }
    EXTRA.each { |n| rules["fixed #{n}"] = n }
    rows = Hash.new { |h, k| h[k] = [] }
    ROUNDS.times do
      rules.each do |name, n|
        result, cpu = measured(engine, url, dir, connections: n)
        rows[name] << [cpu, result.latency_ms["p99"], result.achieved_rate, result.valid]
      end
    end
    after = Rackbench::Sampling::Noise.measure(window: 1.0)
    puts format("\n%-22s %6s %12s %12s %12s %s", "rule at #{RATE.round} req/s", "conns", "client CPU", "p99 ms", "achieved", "valid")
    rules.each do |name, n|
      rows[name].each do |cpu, p99ms, achieved, valid|
        puts format("%-22s %6d %10.1f %% %12.3f %12.1f %s", name, n, cpu, p99ms, achieved, valid)
      end
    end
    new_rows = rows["new (Little's law)"]
    med = ->(xs) { xs.sort[xs.size / 2] }
    cpu, lat = med.call(new_rows.map(&:first)), med.call(new_rows.map { |r| r[1] })
    puts "\nnew rule, median of #{ROUNDS}: client CPU #{cpu.round(1)}% of a core (target <= 35%: " \
         "#{cpu <= 35 ? 'met' : 'NOT met'}), p99 #{lat.round(2)} ms (target <= 2 ms: #{lat <= 2 ? 'met' : 'NOT met'})"
    puts "after the runs: #{after.describe}"
  ensure
    nginx.stop("QUIT", timeout: 5)
  end
end
