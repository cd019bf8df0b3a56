# frozen_string_literal: true

# Can `rackbench report` render a huge run in under a minute and 500 MB
# (issue 35), with trials as a real run stores them (issue 46: a real trial
# line is ~2.8 KB, not the 640 bytes this bench first wrote)? Writes a
# synthetic run directory through the product's own store (Store::RunDir:
# meta.json, setups.jsonl, trials.jsonl appended in batches), then renders
# it once in each format, each in a fresh child process (`rackbench report
# DIR --format F`, its standard output a file), and prints the wall time
# (monotonic clock, the child's whole life), its CPU time, and its peak RSS
# (VmHWM of the child's /proc/self/status, read as it exits).
#
# Every trial is test/fixtures/store/recorded_trial.jsonl (a real run's line:
# `rackbench run -s "puma x1:2" -e /hello -c 1 -d 1 --warmup 0`, every field
# the runner stores: sampler, queues, machine, balance, split, runtime,
# health), with its identity and headline figures rewritten: key, setup,
# endpoint, level, start time, req/s, latency, memory, CPU, the wrk command
# line; and every other figure a real run measures anew each trial (MEASURED:
# the sampler's, the queues', the machine's, the workers' balance and split,
# the health checks' times) drawn around the recorded one (half to one and a
# half times it, as many decimals), so that no more of a trial's values
# repeat from trial to trial than in a real run (a report codes those that
# do: Store::PackedRecords). The boot's pids are the setup's. The run:
# SETUPS setups x endpoints x 2 levels, one repetition each (so trials =
# cells; one round decides no pair: decisions are looked for,
# none is made). Every cell fails Little's law (a mean latency well under
# c / req/s) and ran under foreign load (the recorded line's): the most
# notes, the longest answer and warnings a report can have.
#
#   bundle exec ruby -Ilib bench/huge_report.rb [CELLS] [FORMAT ...] [--size SIZE] [--dir DIR]
#                                               [--lib DIR] [--before DIR]
#
# CELLS: default 100000, limits 60 s and 500 MB a format. --size SIZE
# (e.g. 1G): instead, as many cells as make trials.jsonl SIZE bytes, limit
# 1 GB of peak RSS a format (its time is printed, not limited). FORMAT:
# default every format. --dir DIR: keep the run directory there (written
# when DIR does not exist yet, else reused). --lib DIR: render with the
# rackbench in DIR (default this checkout's lib/). --before DIR: also render
# each format with the rackbench in DIR first (an older checkout's lib/:
# `git archive OLD lib | tar -x -C /tmp/old`), print both rows side by side,
# and say whether the two renderings are the same bytes.
#
# Times are of one render on whatever else the machine runs; the peak RSS is
# not affected by a busy machine.

require "json"
require "tmpdir"
require "fileutils"
require "rackbench/store/run_dir"
require "rackbench/report/formats"
require "rackbench/clock"

SETUPS = ["puma x2:5", "unicorn x2"].freeze
LEVELS = [8, 16].freeze
RECORDED = File.read(File.join(__dir__, "../test/fixtures/store/recorded_trial.jsonl")).lines.first

$stdout.sync = true
def option(name) = ARGV.index(name)&.then { |i| ARGV.slice!(i, 2).last }
keep = option("--dir")
size = option("--size")&.then do |text|
  found = text.upcase.match(/\A(\d+)([KMG]?)\z/) or abort "--size takes bytes, or K, M, G of them (1G)"
  Integer(found[1]) * 1024**" KMG".index(found[2].empty? ? " " : found[2])
end
LIB = File.expand_path(option("--lib") || File.join(__dir__, "../lib"))
BEFORE = option("--before")&.then { |d| File.expand_path(d) }
cells = Integer(ARGV.first =~ /\A\d+\z/ ? ARGV.shift : 100_000)
# Every format that renders the cells (speedscope renders run --profile's
# stacks, which this synthetic run has none of).
formats = ARGV.empty? ? Rackbench::Report::Formats.names - ["speedscope"] : ARGV
LIMIT_S = size ? nil : 60
LIMIT_MB = size ? 1024 : 500

# The figures of a trial a run measures anew each time, beyond those
# trial() sets: paths in the recorded trial (an Integer: a list's index).
MEASURED = [
  %w[duration_s], %w[latency_ms min], %w[latency_ms stdev], %w[sampler samples], %w[sampler duration_s],
  *%w[workers_pct client_pct server_machine_share client_machine_share sampler_pct].map { |k| ["cpu", k] },
  %w[processes threads_max], %w[processes rss_growth],
  *%w[accept server.backlog server.busy_threads].product(%w[mean p95 max samples]).map { |q, k| ["queues", *q.split("."), k] },
  %w[queues waiting_mean],
  *%w[cpu_pct interrupts_pct rackbench_pct client_reaped_pct foreign_pct window_s].map { |k| ["machine", k] },
  *%w[cpu_pct requests gc_count gc_time_ms].map { |k| ["balance", "workers", 0, k] }, %w[balance busiest_cpu_pct],
  *%w[requests wall_ms cpu_ms gc_ms waiting_ms cpu_share threads_per_process runq_ms].map { |k| ["split", k] },
  *%w[requests wall_ms cpu_ms].map { |k| ["split", "workers", 0, k] },
  %w[health median_ms], %w[health max_ms]
].freeze

# value drawn around itself (r in 0...1): 0.5 to 1.5 times it, an Integer
# as an Integer, a Float with its decimals; a zero drawn from 0 to 3.
def around(value, r)
  return value.zero? ? (r * 4).floor : (value * (0.5 + r)).round if value.is_a?(Integer)

  decimals = [value.to_s[/\.(\d+)\z/, 1].to_s.size, 1].max
  value.zero? ? (r * 4).round(decimals) : (value * (0.5 + r)).round(decimals)
end

# The recorded trial, renamed to this cell and given its figures.
def trial(setup, endpoint, level, index)
  rps = (setup.start_with?("puma") ? 1000.0 : 800.0) + index % 7 + (index % 100) / 100.0
  p99 = 12.0 + index % 5
  server = setup.split.first
  t = JSON.parse(RECORDED)
  t.merge!("key" => "#{setup}|#{endpoint}|#{level}|1", "setup" => setup, "server" => server, "workers" => 2,
           "threads" => server == "puma" ? 5 : 1, "endpoint" => endpoint, "concurrency" => level, "repetition" => 1,
           "started_at" => format("2026-11-27T%02d:%02d:%02d.%03dZ", index / 3_600_000 % 24, index / 60_000 % 60,
                                  index / 1000 % 60, index % 1000),
           "requests" => (rps * 1.1).round, "bytes" => (rps * 1.1).round * 94, "rps" => rps, "goodput_rps" => rps,
           "latency_ms" => { "min" => 0.076, "mean" => p99 / 4, "stdev" => 1.338, "p50" => p99 / 5, "p75" => p99 / 3,
                             "p90" => p99 / 2, "p99" => p99, "p99.9" => p99 * 1.2, "max" => p99 * 1.5 },
           "log" => "#{setup.tr(' :', '__')}_#{endpoint.delete('/')}_#{level}_1.wrk.log")
  t["command"] = t["command"].map { |w| w.sub(%r{/hello\z}, endpoint) }.tap { |c| c[c.index("-c") + 1] = level.to_s }
  t["memory"].transform_values! { |v| v && (v * 2 + index % 3 + 0.01 * (index % 97)).round(2) }
  t["cpu"].merge!("server_pct" => 70.0 + index % 9 / 10.0, "client_pct" => 20.0 + index % 7 / 10.0)
  random = Random.new(index)
  MEASURED.each do |path|
    *parents, key = path
    within = parents.reduce(t) { |node, k| node[k] }
    within[key] = around(within[key], random.rand)
  end
  pid = 15_000 + SETUPS.index(setup)
  t["balance"]["workers"][0]["pid"] = t["split"]["workers"][0]["pid"] = pid
  t["runtime"]["pids_off"] = [pid]
  t
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

# [wall s, CPU s, peak MB, output MB, output file] of one render with the rackbench in lib.
def render(dir, format, lib, out)
  err = "#{out}.err"
  t0 = Rackbench::Clock.now
  pid = Process.spawn(RbConfig.ruby, "-I#{lib}", "-e", CHILD, "report", dir, "--format", format, out: out, err: err)
  _, status = Process.wait2(pid)
  seconds = Rackbench::Clock.now - t0
  text = File.read(err)
  raise "report --format #{format} (#{lib}) failed (#{status.exitstatus}): #{text.lines.last(3).join}" unless status.success?

  [seconds, Float(text[/ CPU ([\d.]+)/, 1]), Integer(text[/VmHWM (\d+)/, 1]) / 1024.0, File.size(out) / 1024.0 / 1024, out]
end

def row(format, label, (seconds, cpu, peak, size, _), note)
  ok = (LIMIT_S.nil? || seconds < LIMIT_S) && peak < LIMIT_MB
  printf("%-6s %-6s %9.1f %9.1f %9.0f %10.1f  %-4s %s\n", format, label, seconds, cpu, peak, size, ok ? "yes" : "NO", note)
  ok
end

Dir.mktmpdir("rackbench-huge") do |tmp|
  dir = keep ? File.expand_path(keep) : File.join(tmp, "run")
  if File.exist?(dir)
    puts "reusing #{dir}"
  else
    cells = (size / JSON.generate(trial(SETUPS[0], "/e1000", 16, 1000)).bytesize.succ.to_f).ceil if size
    t0 = Rackbench::Clock.now
    n = write_run(dir, cells)
    bytes = File.size(File.join(dir, "trials.jsonl"))
    printf("wrote %d cells (%d trials, %.0f MB trials.jsonl, %.0f bytes a line) in %.1f s\n", n, n, bytes / 1024.0 / 1024,
           bytes.fdiv(n), Rackbench::Clock.now - t0)
  end
  limits = [LIMIT_S && "#{LIMIT_S} s", "#{LIMIT_MB} MB"].compact.join(" and ")
  printf("%-6s %-6s %9s %9s %9s %10s  %s\n", "format", "lib", "seconds", "CPU s", "peak MB", "output MB", "within #{limits}")
  failed = formats.reject do |format|
    before = BEFORE && render(dir, format, BEFORE, File.join(tmp, "before.#{format}"))
    row(format, "before", before, "") if before
    after = render(dir, format, LIB, File.join(tmp, "after.#{format}"))
    same = before && (FileUtils.compare_file(before.last, after.last) ? "same output as before" : "OUTPUT DIFFERS from before")
    ok = row(format, BEFORE ? "after" : "", after, same)
    [before&.last, after.last].compact.each { |f| File.delete(f) }
    ok && same != "OUTPUT DIFFERS from before"
  end
  exit(failed.empty? ? 0 : 1)
end
