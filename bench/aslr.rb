# frozen_string_literal: true

# Does starting servers with address randomisation off (--aslr off,
# ProcessControl::Layout: setarch -R) narrow a decision's interval on this
# machine, and does the fixed layout bias it?
#
# Each boot draws its own memory layout, and a layout can move a CPU-bound
# figure (Mytkowicz et al., ASPLOS 2009); on a quiet 16-core machine plain
# Ruby computing fib(25) varied 6.5-13.5% across fresh processes and 1.9%
# with randomisation off (issue 22). Here, on the real servers:
#
#   bundle exec ruby -Ilib bench/aslr.rb [ROUNDS] [SECONDS] [PATH]   (defaults 10 2 /fibonacci/25)
#
# Method: ROUNDS rounds; each boots four servers fresh, one after another,
# in a fresh random order: puma x1:1 and unicorn x1 (single-process, so a
# boot is one layout), each with randomisation on and off. Per boot: 1 s of
# unrecorded warm-up, then SECONDS of wrk at c=1 (closed loop, one
# connection: the server's own speed, no queueing), req/s from wrk's count.
# Printed side by side:
# 1. each setup's boot-to-boot spread of req/s, on and off (CV, and a 95%
#    bootstrap interval of the ratio of the two standard deviations of
#    log req/s over boots: 2,000 resamples, percentile method);
# 2. the decision unicorn x1 / puma x1:1 from the rounds' paired log ratios
#    (Stats::Decision, paired, 5% margin), on and off: the interval's width
#    is what --aslr off would buy a user; the two ratios' difference is the
#    bias of the fixed layout (one layout may favour one server).
# Limits: one machine, one endpoint, single-process setups; a layout that
# favours a server here may not elsewhere.

require "tmpdir"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/load"
require "rackbench/workload/arena"
require "rackbench/stats/decision"
require "rackbench/process_control/server_instance"
require "rackbench/process_control/layout"

rounds = Integer(ARGV[0] || 10)
seconds = Integer(ARGV[1] || 2)
path = ARGV[2] || "/fibonacci/25"
SETUPS = ["puma x1:1", "unicorn x1"].freeze
MODES = { "on" => false, "off" => true }.freeze # mode => fixed_layout

if (why = Rackbench::ProcessControl::Layout.problem)
  abort "bench/aslr.rb: #{why}"
end

def measure(label, fixed, dir, path, seconds, engine)
  setup = Rackbench::Setup.parse(label)
  instance = Rackbench::ProcessControl::ServerInstance.new(
    adapter: Rackbench::Server.adapter(setup.server), setup: setup, app: Rackbench::Workload::Arena::CONFIG_RU,
    port: Rackbench::Ports.free, dir: dir, ready_path: Rackbench::Workload::Arena::READY_PATH, fixed_layout: fixed
  ).start
  url = instance.url(path)
  engine.run(url: url, concurrency: 1, duration: 1, log_path: File.join(dir, "warm.log"))
  engine.run(url: url, concurrency: 1, duration: seconds, log_path: File.join(dir, "wrk.log")).rps
ensure
  instance&.stop
end

def sd(xs)
  m = xs.sum / xs.size
  Math.sqrt(xs.sum { |x| (x - m)**2 } / (xs.size - 1))
end

def cv(xs)
  sd(xs) / (xs.sum / xs.size)
end

# 95% percentile-bootstrap interval of sd(log off) / sd(log on).
def sd_ratio_interval(on, off, random)
  lon = on.map { |v| Math.log(v) }
  loff = off.map { |v| Math.log(v) }
  ratios = Array.new(2000) do
    a = Array.new(lon.size) { lon[random.rand(lon.size)] }
    b = Array.new(loff.size) { loff[random.rand(loff.size)] }
    sa = sd(a)
    sa.positive? ? sd(b) / sa : nil
  end.compact.sort
  [ratios[(ratios.size * 0.025).floor], ratios[(ratios.size * 0.975).ceil - 1]]
end

engine = Rackbench::Load.default
random = Random.new(42)
rps = Hash.new { |h, k| h[k] = [] } # [label, mode] => req/s per round
Dir.mktmpdir("rackbench-aslr") do |tmp|
  rounds.times do |r|
    SETUPS.product(MODES.keys).shuffle(random: random).each do |label, mode|
      dir = File.join(tmp, "r#{r}-#{label.tr(' :', '__')}-#{mode}")
      rps[[label, mode]] << measure(label, MODES.fetch(mode), dir, path, seconds, engine)
    end
    printf("round %2d: %s\n", r + 1, SETUPS.product(MODES.keys).map { |l, m| format("%s aslr %s %.1f", l, m, rps[[l, m]].last) }.join(", "))
  end
end

puts
puts "#{path}, c=1, #{seconds} s per boot, #{rounds} boots per setup and mode:"
SETUPS.each do |label|
  on = rps[[label, "on"]]
  off = rps[[label, "off"]]
  low, high = sd_ratio_interval(on, off, random)
  printf("  %-11s boot-to-boot CV: aslr on %.1f%%, off %.1f%%; sd(off)/sd(on) %.2f (95%% bootstrap %.2f-%.2f); " \
         "mean off/on %.3f\n", label, cv(on) * 100, cv(off) * 100, sd(off.map { |v| Math.log(v) }) / sd(on.map { |v| Math.log(v) }),
         low, high, (off.sum / off.size) / (on.sum / on.size))
end
MODES.each_key do |mode|
  d = Rackbench::Stats::Decision.of(rps[[SETUPS[0], mode]], rps[[SETUPS[1], mode]], paired: true, margin: 0.05)
  printf("  unicorn x1 / puma x1:1, aslr %-3s: ratio %.3f, 95%% CI %.3f-%.3f (width %.1f%%), %s\n", mode, d.ratio,
         d.ci_low, d.ci_high, (d.ci_high - d.ci_low) * 100, d.outcome)
end
