# frozen_string_literal: true

# Is rackbench's req/s for /hello within 2% of plain wrk with the same
# settings? Boots one Puma on the arena app, then runs interleaved rounds,
# in one run so machine noise hits both alike: plain `wrk` (its own
# Requests/sec line) and rackbench's measurement path (Load::Wrk with its
# Lua report script, while the process sampler runs).
#
#   bundle exec ruby -Ilib bench/wrk_parity.rb [ROUNDS] [SECONDS] [auto]
#   (auto: Puma and wrk on separate cores, as --cpus auto)
#
# Method (the claim is decided statistically, not by a median that noise
# moves by several percent):
# - rounds alternate the order (plain first, then ours first: ABBA), so a
#   drift over the run (another process starting, a CPU warming) biases
#   neither side;
# - each round gives the paired ratio ours / plain; their logarithms are
#   averaged and a 95% confidence interval taken from Student's t with
#   ROUNDS - 1 degrees of freedom (paired design: the machine's state,
#   shared by both runs of a round, cancels), then mapped back to a ratio;
# - verdict: "within 2%" only when the whole interval is inside 0.98-1.02;
#   "differs" when it excludes 1 and leaves that band; otherwise
#   "undecided" (raise ROUNDS or quiet the machine). The machine's foreign
#   CPU (Sampling::Noise) before and after is printed beside it.

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
require "rackbench/stats/student_t"
require "rackbench/sampling/noise"
require "rackbench/process_control/affinity"

rounds = Integer(ARGV[0] || 5)
seconds = Integer(ARGV[1] || 3)
connections = 16
cpus = ARGV[2] == "auto" ? Rackbench::ProcessControl::Affinity.auto(Rackbench::ProcessControl::Affinity.usable_cpus) : nil

Dir.mktmpdir("rackbench-bench") do |dir|
  setup = Rackbench::Setup.parse("puma x2:4")
  instance = Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma"), setup: setup,
                                             app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free,
                                             dir: dir, ready_path: "/health", cpus: cpus&.server).start
  url = instance.url("/hello")
  engine = Rackbench::Load.engine("wrk")
  engine.cpus = cpus&.client
  puts "before: #{Rackbench::Sampling::Noise.measure(window: 1.0).describe}"
  puts(cpus ? "puma on CPU #{cpus.to_h['server']}, wrk on CPU #{cpus.to_h['client']}" : "puma and wrk share the cores")
  threads = engine.command(url: url, concurrency: connections, duration: seconds)[2]
  plain = []
  ours = []
  begin
    engine.run(url: url, concurrency: connections, duration: 1, log_path: File.join(dir, "warm.log"))
    run_plain = lambda do
      argv = Rackbench::ProcessControl::Affinity.wrap(["wrk", "-t", threads, "-c", connections.to_s, "-d", "#{seconds}s", url], cpus&.client)
      plain << IO.popen(argv, &:read)[%r{Requests/sec:\s+([\d.]+)}, 1].to_f
    end
    run_ours = lambda do |i|
      sampler = Rackbench::Runner::Sampling.sampler(instance: instance, front: nil, pid: nil).start
      result = engine.run(url: url, concurrency: connections, duration: seconds, log_path: File.join(dir, "r#{i}.log"))
      sampler.stop
      ours << result.rps
    end
    rounds.times do |i|
      i.even? ? (run_plain.call; run_ours.call(i)) : (run_ours.call(i); run_plain.call)
      printf("round %d (%s first): plain wrk %.0f req/s, rackbench %.0f req/s, ratio %.3f\n", i + 1,
             i.even? ? "plain" : "rackbench", plain.last, ours.last, ours.last / plain.last)
    end
  ensure
    instance.stop
  end
  a = Rackbench::Stats::Summary.of(plain).median
  b = Rackbench::Stats::Summary.of(ours).median
  logs = plain.zip(ours).map { |p, o| Math.log(o / p) }
  mean = logs.sum / logs.size
  sd = Math.sqrt(logs.sum { |x| (x - mean)**2 } / (logs.size - 1))
  half = Rackbench::Stats::StudentT.quantile(0.975, logs.size - 1) * sd / Math.sqrt(logs.size)
  low, mid, high = [mean - half, mean, mean + half].map { |x| Math.exp(x) }
  verdict = if low >= 0.98 && high <= 1.02 then "within 2%: the claim holds"
            elsif (high < 1 || low > 1) && (low < 0.98 || high > 1.02) then "differs: rackbench's path changes req/s"
            else "undecided: the interval is wider than the 2% band; raise ROUNDS or quiet the machine"
            end
  cvs = [plain, ours].map { |xs| Rackbench::Stats::Summary.of(xs).cv.to_f * 100 }
  printf("median: plain wrk %.0f req/s (cv %.1f%%), rackbench %.0f req/s (cv %.1f%%)\n", a, cvs[0], b, cvs[1])
  printf("paired ratio %.3f, 95%% CI %.3f-%.3f (%d interleaved rounds, Student's t on log ratios): %s\n",
         mid, low, high, rounds, verdict)
  puts "after: #{Rackbench::Sampling::Noise.measure(window: 1.0).describe}"
end
