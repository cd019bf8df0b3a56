# frozen_string_literal: true

# What sampling costs: the sampler's own CPU time, as a share of one core,
# at its default rate, for 10 idle processes (a master and 9 workers' worth).
#
#   bundle exec ruby -Ilib bench/sampler_overhead.rb [SECONDS]
#
# Two measures, side by side in the same run:
# 1. the sampling thread's own CPU time (CLOCK_THREAD_CPUTIME_ID, read inside
#    the thread by the Sampler): discovery (one pass over /proc per sample,
#    as Server::Instance#processes does for one root), stat and smaps_rollup;
# 2. this whole process's CPU time over the sampling window minus the same
#    over an equally long idle window (catches GC or wake-up costs outside
#    the thread).
# Target: under 1% of one core, so sampling cannot move the numbers it records.

require "rackbench/process/child"
require "rackbench/sampling/process_tree"
require "rackbench/sampling/sampler"
require "rackbench/clock"

SECONDS = Float(ARGV.fetch(0, 5))
COUNT = 10
TARGET_PCT = 1.0

def process_cpu
  Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
end

def window(seconds)
  cpu = process_cpu
  wall = Rackbench::Clock.now
  yield if block_given?
  sleep seconds
  [process_cpu - cpu, Rackbench::Clock.now - wall]
end

children = []
begin
  children = Array.new(COUNT) { Rackbench::ProcessControl::Child.spawn(%w[sleep 30], log_path: File::NULL) }
  pids = children.map(&:pid)
  roles = lambda do
    found = Rackbench::Sampling::ProcessTree.all.select { |e| pids.include?(e.pid) }
    { "master" => found.first(1), "worker" => found.drop(1) }
  end
  sampler = Rackbench::Sampling::Sampler.new(roles: roles)

  idle_cpu, idle_wall = window(SECONDS)
  summary = nil
  busy_cpu, busy_wall = window(SECONDS) { sampler.start }
  summary = sampler.stop

  thread_pct = 100.0 * summary.sampler_cpu_seconds / summary.duration
  process_pct = 100.0 * ((busy_cpu / busy_wall) - (idle_cpu / idle_wall))
  per_sample_ms = 1000.0 * summary.sampler_cpu_seconds / summary.samples.size
  readings = summary.samples.sum { |s| s.readings.size } / summary.samples.size.to_f
  procs_on_machine = Rackbench::Sampling::ProcessTree.all.size

  puts format("sampler: %d samples in %.2f s (interval %.2f s, %d missed ticks), %.1f processes per sample, " \
              "%d processes on the machine", summary.samples.size, summary.duration, summary.interval,
              summary.missed_ticks, readings, procs_on_machine)
  puts format("thread CPU:  %.3f s = %.2f%% of one core (%.2f ms per sample); %.2fx the %.0f%% target",
              summary.sampler_cpu_seconds, thread_pct, per_sample_ms, thread_pct / TARGET_PCT, TARGET_PCT)
  puts format("process CPU: %.2f%% of one core sampling vs %.2f%% idle = %.2f%% added; %.2fx the target",
              100.0 * busy_cpu / busy_wall, 100.0 * idle_cpu / idle_wall, process_pct, process_pct / TARGET_PCT)
  puts format("footprint of the 10 sleeps: PSS %.1f MB, summed RSS %.1f MB",
              summary.pss_total / 1024.0**2, summary.rss_sum / 1024.0**2)
ensure
  children.each { |c| c.stop("TERM", timeout: 2) }
end
