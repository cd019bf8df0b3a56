# frozen_string_literal: true

# What does an idle neighbour cost a setup under load? If a round's setups
# were booted together (to save boots) and measured one after another, each
# would be measured beside the others' idle processes. This measures that
# cost directly: puma x2:5 on /fibonacci/25 (CPU-bound) and on /hello,
# alone, and with unicorn x2 booted beside it and idle, in interleaved
# rounds (ABBA order), on one boot of A.
#
#   bundle exec ruby -Ilib bench/idle_neighbour.rb [ROUNDS] [SECONDS]   (defaults 8 2)
#
# Method: per round, req/s of A alone and A with B idle (B booted before,
# stopped after that trial); the paired ratio with-neighbour / alone, its
# log's mean and a 95% Student's t interval over rounds (Stats::Decision,
# paired), decided at a 2% margin: "equivalent" means an idle neighbour
# costs less than 2%. The neighbour's boot and stop are outside the timed
# trial; its idle CPU (from /proc over the trial) is printed beside it.

require "tmpdir"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/load"
require "rackbench/workload/arena"
require "rackbench/stats/decision"
require "rackbench/system/process_tree"

rounds = Integer(ARGV[0] || 8)
seconds = Integer(ARGV[1] || 2)

def boot(label, dir)
  setup = Rackbench::Setup.parse(label)
  Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter(setup.server), setup: setup,
                                                app: Rackbench::Workload::Arena::CONFIG_RU, port: Rackbench::Ports.free,
                                                dir: dir, ready_path: "/health").start
end

def cpu_ticks(instance)
  instance.processes.sum do |e|
    fields = File.read("/proc/#{e.pid}/stat").split(") ").last.split
    fields[11].to_i + fields[12].to_i
  rescue SystemCallError
    0
  end
end

Dir.mktmpdir("rackbench-neighbour") do |tmp|
  engine = Rackbench::Load.engine("wrk")
  a = boot("puma x2:5", File.join(tmp, "a"))
  begin
    %w[/fibonacci/25 /hello].each do |path|
      url = a.url(path)
      engine.run(url: url, concurrency: 8, duration: 1, log_path: File.join(tmp, "warm.log"))
      alone = []
      beside = []
      idle_pct = []
      rounds.times do |i|
        measure_alone = -> { alone << engine.run(url: url, concurrency: 8, duration: seconds, log_path: File.join(tmp, "a#{i}.log")).rps }
        measure_beside = lambda do
          b = boot("unicorn x2", File.join(tmp, "b#{i}#{path.tr('/', '_')}"))
          begin
            t0 = cpu_ticks(b)
            beside << engine.run(url: url, concurrency: 8, duration: seconds, log_path: File.join(tmp, "b#{i}.log")).rps
            idle_pct << (cpu_ticks(b) - t0) / (seconds * 100.0) * 100
          ensure
            b.stop
          end
        end
        i.even? ? (measure_alone.call; measure_beside.call) : (measure_beside.call; measure_alone.call)
        printf("%-14s round %d: alone %.0f req/s, beside an idle unicorn x2 %.0f req/s (ratio %.3f)\n", path, i + 1,
               alone.last, beside.last, beside.last / alone.last)
      end
      d = Rackbench::Stats::Decision.of(alone, beside, paired: true, margin: 0.02)
      printf("%-14s idle neighbour: ratio %.3f, 95%% CI %.3f-%.3f over %d rounds: %s at a 2%% margin; the neighbour " \
             "used %.1f%% of a core while idle\n", path, d.ratio, d.ci_low, d.ci_high, rounds,
             { higher: "faster beside it", lower: "slower beside it", equivalent: "equivalent", undecided: "undecided" }
               .fetch(d.outcome), idle_pct.sum / idle_pct.size)
    end
  ensure
    a.stop
  end
end
