# frozen_string_literal: true

# Is rackbench's req/s for /hello within 2% of plain wrk with the same
# settings? Boots one Puma on the arena app, then alternates, in one run so
# machine noise hits both alike: plain `wrk` (its own Requests/sec line) and
# rackbench's measurement path (Load::Wrk with its Lua report script, while
# the process sampler runs). Prints each median and their ratio.
#
#   bundle exec ruby -Ilib bench/wrk_parity.rb [ROUNDS] [SECONDS]

require "tmpdir"
require "rackbench/error"
require "rackbench/suggest"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/load"
require "rackbench/workload/arena"
require "rackbench/runner/sampling"
require "rackbench/stats/summary"

rounds = Integer(ARGV[0] || 5)
seconds = Integer(ARGV[1] || 3)
connections = 16

Dir.mktmpdir("rackbench-bench") do |dir|
  setup = Rackbench::Setup.parse("puma x2:4")
  instance = Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma"), setup: setup,
                                             app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free,
                                             dir: dir, ready_path: "/health").start
  url = instance.url("/hello")
  engine = Rackbench::Load.engine("wrk")
  threads = engine.command(url: url, concurrency: connections, duration: seconds)[2]
  plain = []
  ours = []
  begin
    engine.run(url: url, concurrency: connections, duration: 1, log_path: File.join(dir, "warm.log"))
    rounds.times do |i|
      out = IO.popen(["wrk", "-t", threads, "-c", connections.to_s, "-d", "#{seconds}s", url], &:read)
      plain << out[%r{Requests/sec:\s+([\d.]+)}, 1].to_f
      sampler = Rackbench::Runner::Sampling.sampler(instance: instance, front: nil, pid: nil).start
      result = engine.run(url: url, concurrency: connections, duration: seconds, log_path: File.join(dir, "r#{i}.log"))
      sampler.stop
      ours << result.rps
      printf("round %d: plain wrk %.0f req/s, rackbench %.0f req/s\n", i + 1, plain.last, ours.last)
    end
  ensure
    instance.stop
  end
  a = Rackbench::Stats::Summary.of(plain).median
  b = Rackbench::Stats::Summary.of(ours).median
  printf("median: plain wrk %.0f req/s, rackbench %.0f req/s, ratio %.3f (target: within 2%%, i.e. 0.98-1.02)\n", a, b, b / a)
end
