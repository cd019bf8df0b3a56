# frozen_string_literal: true

# Precision you can state: the coefficient of variation of req/s over
# `--repeat 5` at saturation, with and without separate cores, in one run.
#
#   bundle exec ruby -Ilib bench/precision.rb [SETUP] [ENDPOINT] [CONCURRENCY] [SECONDS] [REPEAT]
#   default: "puma x1:4" /fibonacci/20 4 3 5
#
# Method: two `rackbench run` commands (this checkout's exe, in-process
# through CLI.call), the same plan apart from --cpus: shared (no --cpus: the
# kernel places server and wrk anywhere) and separate (--cpus auto: on 2
# CPUs the server on CPU 0, wrk on CPU 1). Each runs REPEAT repetitions of
# one cell (a fresh boot per repetition, 1 s warm-up); CV = standard
# deviation / mean of the repetitions' req/s. The saturating level is the
# caller's (CONCURRENCY, default 4 connections on a 1-worker Puma of 4
# threads running a CPU-bound page: the server's core is busy throughout).
# With separate cores the server has one core, so its req/s is lower: the
# figure compared is the spread, not the throughput. The machine's foreign
# CPU (Sampling::Noise) is measured before each run and averaged over the
# trials (machine.foreign_pct), since other users' load moves every figure,
# and so is the hypervisor's steal per repetition (machine.steal_pct): on a
# virtual machine a pinned server cannot move off a virtual CPU the host is
# not running;
# target: CV <= 3% with separate cores on a quiet machine.

require "json"
require "tmpdir"
require "rackbench/cli"
require "rackbench/sampling/noise"
require "rackbench/stats/summary"

SETUP = ARGV.fetch(0, "puma x1:4")
ENDPOINT = ARGV.fetch(1, "/fibonacci/20")
CONCURRENCY = ARGV.fetch(2, "4")
SECONDS = ARGV.fetch(3, "3")
REPEAT = ARGV.fetch(4, "5")

def run(dir, extra)
  out = StringIO.new
  err = StringIO.new
  status = Rackbench::CLI.call(["run", "-s", SETUP, "-e", ENDPOINT, "-c", CONCURRENCY, "-d", SECONDS, "--repeat", REPEAT,
                                "--warmup", "1", "--cooldown", "0.5", "-q", "-o", dir, *extra], out: out, err: err, env: ENV.to_h)
  abort "rackbench run failed (#{status}): #{err.string}" unless status.zero?
  File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
end

Dir.mktmpdir("rackbench-precision") do |dir|
  rows = { "shared cores" => [], "separate cores (--cpus auto)" => ["--cpus", "auto"] }.map do |name, extra|
    before = Rackbench::Sampling::Noise.measure(window: 1.0)
    trials = run(File.join(dir, name.split.first), extra)
    rps = trials.map { |t| t["rps"] }
    foreign = trials.filter_map { |t| t.dig("machine", "foreign_pct") }
    steal = trials.map { |t| t.dig("machine", "steal_pct") }
    s = Rackbench::Stats::Summary.of(rps)
    [name, s, rps, before, foreign.sum / [foreign.size, 1].max, trials.first["cpus"], steal]
  end
  puts "#{SETUP} #{ENDPOINT} c=#{CONCURRENCY}, #{REPEAT} x #{SECONDS} s each"
  rows.each do |name, s, rps, before, foreign, cpus, steal|
    puts format("%-30s mean %7.0f req/s  CV %5.1f%%  (%s)", name, s.mean, s.cv.to_f * 100, rps.map(&:round).join(", "))
    puts format("%-30s steal (the hypervisor's share, %% of a core) per repetition: %s", "", steal.map(&:to_s).join(", "))
    puts format("%-30s foreign CPU before: %s; during the trials: %.0f%% of a core on average; sets %s",
                "", before.describe, foreign, cpus.to_json)
  end
  sep = rows.last[1].cv.to_f * 100
  puts "separate cores: CV #{sep.round(1)}% (target <= 3% on a quiet machine: #{sep <= 3 ? 'met' : 'NOT met'})"
end
