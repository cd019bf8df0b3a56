# frozen_string_literal: true

# Is `rackbench report` linear in trials and cells? Writes synthetic run
# directories of N trials in N cells (N endpoints x 1 setup x 1 level, the
# worst case for per-cell lookups) at 1k, 10k and 100k, renders each with
# the terminal table and the JSON report, and prints the time per cell
# (monotonic clock; one render each, so small sizes are noisy). Linear means
# the time per cell stays about flat as N grows tenfold.
#
#   bundle exec ruby -Ilib bench/report_scale.rb [MAX]   (default 100000)

require "json"
require "stringio"
require "tmpdir"
require "rackbench/cli"
require "rackbench/clock"

max = Integer(ARGV[0] || 100_000)
sizes = [1_000, 10_000, 100_000].select { |n| n <= max }

Dir.mktmpdir("rackbench-scale") do |tmp|
  rows = sizes.map do |n|
    dir = File.join(tmp, "run#{n}")
    Dir.mkdir(dir)
    File.write(File.join(dir, "meta.json"), JSON.generate("rackbench" => "bench", "command" => "run"))
    File.open(File.join(dir, "trials.jsonl"), "w") do |f|
      n.times do |i|
        f.puts JSON.generate("key" => "puma|/e#{i}|8|1", "setup" => "puma x2:5", "server" => "puma", "endpoint" => "/e#{i}",
                             "concurrency" => 8, "repetition" => 1, "loop" => "closed", "duration_s" => 1.0,
                             "requests" => 1000 + i % 7, "rps" => 1000.0 + i % 7, "error_total" => 0,
                             "latency_ms" => { "mean" => 8.0, "p50" => 7.0, "p90" => 9.0, "p99" => 12.0, "max" => 20.0 })
      end
    end
    %w[table json].map do |format|
      t0 = Rackbench::Clock.now
      status = Rackbench::CLI.call(["report", dir, "--format", format], out: StringIO.new, err: StringIO.new, env: ENV.to_h)
      raise "report #{format} failed on #{n} cells (#{status})" unless status.zero?

      [n, format, Rackbench::Clock.now - t0]
    end
  end.flatten(1)
  rows.each { |n, format, s| printf("%7d cells  %-5s  %7.2f s  %6.1f us/cell\n", n, format, s, s / n * 1e6) }
end
