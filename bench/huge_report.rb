# frozen_string_literal: true

# Can `rackbench report` render a huge run in under a minute and 500 MB
# (issue 35)? Writes a synthetic run directory of CELLS cells through the
# product's own store (Store::RunDir: meta.json, setups.jsonl, trials.jsonl
# appended in batches), then renders it once in each format, each in a fresh
# child process (`rackbench report DIR --format F`, its standard output a
# file), and prints the wall time (monotonic clock, the child's whole life)
# and CPU time, and the child's peak RSS (VmHWM of /proc/self/status, read
# as it exits).
#
# The run: SETUPS setups x (CELLS / SETUPS / 2) endpoints x 2 levels, one
# repetition each (so trials = cells; one round decides no pair: decisions
# are looked for, none is made), each trial a full record as the runner
# stores it (latency percentiles, errors by kind, memory, CPU, command line).
# Every cell fails Little's law (a mean latency well under c / req/s): the
# most notes, the longest answer and warnings a report can have.
#
#   bundle exec ruby -Ilib bench/huge_report.rb [CELLS] [FORMAT ...] [--dir DIR] [--lib DIR]
#
# CELLS: default 100000; FORMAT: default every format; --dir DIR: keep the
# run directory there (written when DIR does not exist yet, else reused);
# --lib DIR: render with the rackbench in DIR (an older checkout's lib/, to
# compare: `git archive OLD lib | tar -x -C /tmp/old`).
#
# Times are of one render on whatever else the machine runs; the peak RSS is
# not affected by a busy machine.

require "json"
require "tmpdir"
require "rackbench/store/run_dir"
require "rackbench/report/formats"
require "rackbench/clock"

LIMIT_S = 60
LIMIT_MB = 500
SETUPS = ["puma x2:5", "unicorn x2"].freeze
LEVELS = [8, 16].freeze

$stdout.sync = true
keep = ARGV.index("--dir")&.then { |i| ARGV.slice!(i, 2).last }
LIB = File.expand_path(ARGV.index("--lib")&.then { |i| ARGV.slice!(i, 2).last } || File.join(__dir__, "../lib"))
cells = Integer(ARGV.shift || 100_000)
formats = ARGV.empty? ? Rackbench::Report::Formats.names : ARGV

def trial(setup, endpoint, level, index)
  rps = (setup.start_with?("puma") ? 1000.0 : 800.0) + index % 7
  p99 = 12.0 + index % 5
  { "key" => "#{setup}|#{endpoint}|#{level}|1", "setup" => setup, "server" => setup.split.first, "workers" => 2,
    "threads" => 5, "endpoint" => endpoint, "concurrency" => level, "repetition" => 1,
    "started_at" => "2026-11-27T16:00:00.000Z", "engine" => "wrk", "loop" => "closed", "duration_s" => 1.0,
    "requests" => rps.round, "bytes" => rps.round * 100, "rps" => rps,
    "latency_ms" => { "min" => 0.1, "mean" => p99 / 4, "stdev" => 1.0, "p50" => p99 / 5, "p75" => p99 / 3, "p90" => p99 / 2,
                      "p99" => p99, "p99.9" => p99 * 1.2, "max" => p99 * 1.5 },
    "errors" => { "connect" => 0, "read" => 0, "write" => 0, "timeout" => 0, "status" => 0 }, "error_total" => 0,
    "memory" => { "pss_total_mb" => 120.0 + index % 3, "uss_total_mb" => 90.0 }, "cpu" => { "server_pct" => 70.0, "client_pct" => 20.0 },
    "command" => ["wrk", "-c", level.to_s, "-d", "1s", "http://127.0.0.1:40000#{endpoint}"], "log" => "logs/wrk.log" }
end

def write_run(dir, cells)
  store = Rackbench::Store::RunDir.create(dir, command: "bench")
  store.write_meta("rackbench" => "bench", "command" => "run", "cores" => 2, "argv" => %w[rackbench run],
                   "plan" => { "duration_s" => 1.0, "warmup_s" => 0.0, "repeat" => 1 }, "config" => { "repeat" => 1 })
  SETUPS.each do |setup|
    store.append_setup("setup" => setup, "server" => setup.split.first, "repetition" => 1, "status" => "ok", "port" => 40_000,
                       "boot_s" => 1.0, "argv" => [setup.split.first], "master_pid" => 100, "worker_pids" => [101, 102])
  end
  endpoints = (cells / SETUPS.size / LEVELS.size.to_f).ceil
  batch = []
  written = 0
  endpoints.times do |e|
    SETUPS.each do |setup|
      LEVELS.each do |level|
        next if written >= cells

        batch << trial(setup, "/e#{e}", level, written)
        written += 1
      end
    end
    next if batch.size < 5_000

    store.append_trial(batch)
    batch = []
  end
  store.append_trial(batch) unless batch.empty?
  store.unlock
  written
end

# The child: renders with the CLI, its stdout the output file, and prints
# its own peak RSS (kB) on stderr's last line.
CHILD = <<~RUBY
  require "rackbench/cli"
  status = Rackbench::CLI.call(ARGV, out: $stdout, err: $stderr, env: ENV.to_h)
  $stdout.flush
  $stderr.puts "VmHWM " + File.read("/proc/self/status")[/VmHWM:\\s+(\\d+)/, 1] +
               " CPU " + Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID).to_s
  exit status
RUBY

def render(dir, format, tmp)
  out = File.join(tmp, "out.#{format}")
  err = File.join(tmp, "err.#{format}")
  t0 = Rackbench::Clock.now
  pid = Process.spawn(RbConfig.ruby, "-I#{LIB}", "-e", CHILD, "report", dir, "--format", format,
                      out: out, err: err)
  _, status = Process.wait2(pid)
  seconds = Rackbench::Clock.now - t0
  text = File.read(err)
  raise "report --format #{format} failed (#{status.exitstatus}): #{text.lines.last(3).join}" unless status.success?

  [seconds, Float(text[/ CPU ([\d.]+)/, 1]), Integer(text[/VmHWM (\d+)/, 1]) / 1024.0, File.size(out) / 1024.0 / 1024]
end

Dir.mktmpdir("rackbench-huge") do |tmp|
  dir = keep ? File.expand_path(keep) : File.join(tmp, "run")
  if File.exist?(dir)
    puts "reusing #{dir}"
  else
    t0 = Rackbench::Clock.now
    n = write_run(dir, cells)
    printf("wrote %d cells (%d trials, %.0f MB trials.jsonl) in %.1f s\n", n, n, File.size(File.join(dir, "trials.jsonl")) / 1024.0 / 1024,
           Rackbench::Clock.now - t0)
  end
  printf("%-6s %9s %9s %9s %10s  %s\n", "format", "seconds", "CPU s", "peak MB", "output MB", "within #{LIMIT_S} s and #{LIMIT_MB} MB")
  failed = formats.reject do |format|
    seconds, cpu, peak, size = render(dir, format, tmp)
    ok = seconds < LIMIT_S && peak < LIMIT_MB
    printf("%-6s %9.1f %9.1f %9.0f %10.1f  %s\n", format, seconds, cpu, peak, size, ok ? "yes" : "NO")
    ok
  end
  exit(failed.empty? ? 0 : 1)
end
