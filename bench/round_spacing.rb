# frozen_string_literal: true

# Must a run's rounds be kept apart in time? A decision's interval
# (Stats::Decision, paired) treats the per-round log ratios B/A as
# independent draws. If the machine drifts slowly, each setup's own req/s is
# correlated from one round to the next; pairing within a round is meant to
# cancel that. This measures whether it does, on this machine:
#
#   bundle exec ruby -Ilib bench/round_spacing.rb [ROUNDS] [PATH]   (defaults 16 /fibonacci/25)
#
# Method: one real `rackbench run` of puma x2:5 and unicorn x2 at c=8, ROUNDS
# rounds back to back (1 s trials, a fresh boot per round, random order per
# round), read back from trials.jsonl. Printed: the lag-1 autocorrelation
# over rounds of each setup's log req/s (the drift) and of the per-round log
# ratio (what the interval uses), each beside the band +-1.96/sqrt(n) within
# which an independent series' lag-1 autocorrelation falls 95% of the time
# (Bartlett). A ratio inside the band while the setups' own series are
# outside it says pairing absorbs the drift and rounds need no spacing; a
# ratio outside it says they do (or that the drift is faster than a round).
# Limits: one pair, one endpoint, ROUNDS rounds: the band is wide at n = 16.

require "json"
require "stringio"
require "tmpdir"
require "rackbench/cli"

rounds = Integer(ARGV[0] || 16)
path = ARGV[1] || "/fibonacci/25"
SETUPS = ["puma x2:5", "unicorn x2"].freeze

def lag1(xs)
  m = xs.sum / xs.size
  den = xs.sum { |x| (x - m)**2 }
  return 0.0 if den.zero?

  xs.each_cons(2).sum { |a, b| (a - m) * (b - m) } / den
end

Dir.mktmpdir("rackbench-spacing") do |tmp|
  out = File.join(tmp, "run")
  err = StringIO.new
  argv = ["run", *SETUPS.flat_map { |s| ["-s", s] }, "-e", path, "-c", "8", "-d", "1", "--warmup", "1", "-r", rounds.to_s,
          "-q", "-o", out]
  status = Rackbench::CLI.call(argv, out: StringIO.new, err: err, env: ENV.to_h)
  abort "rackbench run failed (#{status}): #{err.string.lines.last(3).join}" unless [0, 1].include?(status)

  trials = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
  by = SETUPS.to_h { |s| [s, trials.select { |t| t["setup"] == s }.to_h { |t| [t["repetition"], t["rps"]] }] }
  common = by.values.map(&:keys).reduce(:&).sort
  logs = SETUPS.to_h { |s| [s, common.map { |r| Math.log(by[s][r]) }] }
  ratio = common.each_index.map { |i| logs[SETUPS[1]][i] - logs[SETUPS[0]][i] }
  band = 1.96 / Math.sqrt(common.size)
  puts "#{path}, c=8, #{common.size} rounds back to back (1 s trials, a fresh boot per round); band +-#{format('%.2f', band)}:"
  SETUPS.each do |s|
    r = lag1(logs[s])
    printf("  %-11s own req/s, lag-1 autocorrelation %+.2f %s\n", s, r, r.abs > band ? "(outside the band: drift)" : "(inside the band)")
  end
  r = lag1(ratio)
  verdict = if r.abs > band
              "(outside the band: rounds are not independent; space them or pair closer)"
            else
              "(inside the band: pairing absorbs it; no spacing needed)"
            end
  printf("  ratio %s / %s, lag-1 autocorrelation %+.2f %s\n", SETUPS[1], SETUPS[0], r, verdict)
end
