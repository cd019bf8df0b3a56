# frozen_string_literal: true

# Which levers narrow a decision's interval for the time it takes, on this
# machine, without moving what it estimates? One CPU-bound pair (puma x2:5
# against unicorn x2 on /fibonacci/25 at c=8) measured by real `rackbench
# run`s in four designs, interleaved in BLOCKS blocks (every design once
# per block, in a fresh random order, so the machine's drift spreads over
# all of them):
#
#   baseline      -d 2, a fresh boot per setup and round (the default)
#   short         -d 1, twice the rounds: shorter trials, more boots
#   together      -d 2, --boot together: a round's setups booted side by
#                 side (from round 2) and measured cell by cell
#   takes         -d 1, --per-boot 2: two takes of 1 s per boot
#
#   bundle exec ruby -Ilib bench/boot_levers.rb [BLOCKS] [ROUNDS]   (defaults 3 4)
#
# Method: each design's per-round log ratios ln(unicorn / puma) (req/s,
# per boot: a boot's takes are averaged first) pooled over its blocks; the
# ratio's geometric mean and the half-width of its 95% Student's t
# interval, the minutes of wall time the design's runs took (rackbench's
# own start-up included), and the half-width scaled to one minute
# (half-width x sqrt(minutes), as an interval narrows with the square root
# of the rounds): the lower, the more the design decides per minute. A
# design whose ratio interval does not overlap the baseline's would be
# biased (it measures something else). Beside it: the share of each
# design's wall time its boots took (setups.jsonl boot_s), the most that
# booting a round's setups in parallel could save.
# Limits: BLOCKS x ROUNDS rounds per design; a half-width from 12 rounds is
# itself uncertain by about a fifth, so only clear gaps mean anything.

require "json"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/clock"
require "rackbench/stats/student_t"

blocks = Integer(ARGV[0] || 3)
rounds = Integer(ARGV[1] || 4)
PAIR = ["-s", "puma x2:5", "-s", "unicorn x2", "-e", "/fibonacci/25", "-c", "8", "-q"].freeze
DESIGNS = {
  "baseline" => ->(r) { ["-d", "2", "-r", r.to_s] },
  "short" => ->(r) { ["-d", "1", "-r", (2 * r).to_s] },
  "together" => ->(r) { ["-d", "2", "-r", r.to_s, "--boot", "together"] },
  "takes" => ->(r) { ["-d", "1", "-r", r.to_s, "--per-boot", "2"] }
}.freeze

def run(dir, argv)
  err = StringIO.new
  t0 = Rackbench::Clock.now
  status = Rackbench::CLI.call(["run", *PAIR, *argv, "-o", dir], out: StringIO.new, err: err, env: ENV.to_h)
  raise "rackbench run failed (#{status}): #{err.string.lines.last(3).join}" unless [0, 1].include?(status)

  wall = Rackbench::Clock.now - t0
  out = StringIO.new
  Rackbench::CLI.call(["report", dir, "--format", "json"], out: out, err: StringIO.new, env: ENV.to_h)
  doc = JSON.parse(out.string)
  by_round = doc["trials"].group_by { |t| t["repetition"] }
  logs = by_round.values.filter_map do |ts|
    a = ts.find { |t| t["setup"] == "puma x2:5" }
    b = ts.find { |t| t["setup"] == "unicorn x2" }
    Math.log(b["rps"] / a["rps"]) if a && b && a["rps"].to_f.positive? && b["rps"].to_f.positive?
  end
  boot_s = doc["setups"].sum { |s| s["boot_s"].to_f }
  { logs: logs, wall: wall, boot_s: boot_s }
end

def interval(logs)
  n = logs.size
  mean = logs.sum / n
  sd = Math.sqrt(logs.sum { |x| (x - mean)**2 } / (n - 1))
  half = Rackbench::Stats::StudentT.quantile(0.975, n - 1) * sd / Math.sqrt(n)
  [mean, half]
end

results = Hash.new { |h, k| h[k] = { logs: [], wall: 0.0, boot_s: 0.0 } }
Dir.mktmpdir("rackbench-levers") do |tmp|
  blocks.times do |block|
    DESIGNS.keys.shuffle.each do |name|
      r = run(File.join(tmp, "#{name}#{block}"), DESIGNS.fetch(name).call(rounds))
      res = results[name]
      res[:logs].concat(r[:logs])
      res[:wall] += r[:wall]
      res[:boot_s] += r[:boot_s]
      printf("block %d %-9s %2d rounds in %5.1f s: ratio %.3f\n", block + 1, name, r[:logs].size, r[:wall],
             Math.exp(r[:logs].sum / r[:logs].size))
    end
  end
end

puts
puts "design     rounds  minutes  unicorn/puma [95% CI]      half-width  per minute  boots' share"
DESIGNS.each_key do |name|
  res = results[name]
  mean, half = interval(res[:logs])
  minutes = res[:wall] / 60
  printf("%-9s  %6d  %7.1f  %.3f [%.3f-%.3f]    %6.1f%%    %6.1f%%     %5.1f%%\n", name, res[:logs].size, minutes,
         Math.exp(mean), Math.exp(mean - half), Math.exp(mean + half), half * 100, half * Math.sqrt(minutes) * 100,
         100 * res[:boot_s] / res[:wall])
end
base_mean, base_half = interval(results["baseline"][:logs])
DESIGNS.each_key do |name|
  next if name == "baseline"

  mean, half = interval(results[name][:logs])
  apart = (mean - base_mean).abs > half + base_half
  said = apart ? "its ratio interval does not overlap the baseline's: it may measure something else" : "ratio interval overlaps the baseline's (no bias seen)"
  puts "#{name}: #{said}"
end
