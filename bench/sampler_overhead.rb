# frozen_string_literal: true

# What sampling costs: the sampler's own CPU time, as a share of one core, at
# its default rates, for 10 idle processes (a master and 9 workers' worth).
# The first second carries one-off costs (first discovery and smaps pass, a
# GC of this process's heap), so longer runs show the steady state.
#
#   bundle exec ruby -Ilib bench/sampler_overhead.rb [SECONDS] [sleep|ruby|both] [INTERVAL]
#
# "sleep" processes are tiny; idle "ruby" processes have a Ruby VM's memory
# map, which is what makes smaps_rollup expensive for real workers.
# Two measures, side by side in the same run:
# 1. the sampling thread's own CPU time (CLOCK_THREAD_CPUTIME_ID, read inside
#    the thread by the Sampler): discovery (walking children from this
#    process, as Sampler.roles_for does from a server's master), stat and
#    smaps_rollup;
# 2. this whole process's CPU time over the sampling window minus the same
#    over an equally long idle window just before (catches GC or wake-up
#    costs outside the thread).
# Target: under 1% of one core, so sampling cannot move the numbers it records.

require "rbconfig"
require "rackbench/process_control/child"
require "rackbench/system/process_tree"
require "rackbench/sampling/sampler"
require "rackbench/clock"

SECONDS = Float(ARGV.fetch(0, 5))
INTERVAL = Float(ARGV.fetch(2, Rackbench::Sampling::Sampler::DEFAULT_INTERVAL))
KINDS = { "sleep" => %w[sleep 60], "ruby" => [RbConfig.ruby, "-e", "sleep 60"] }.freeze
COUNT = 10
TARGET_PCT = 1.0

def process_cpu
  Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID)
end

# [CPU seconds of this process, wall seconds] over a window.
def window(seconds)
  cpu = process_cpu
  wall = Rackbench::Clock.now
  yield if block_given?
  sleep seconds
  [process_cpu - cpu, Rackbench::Clock.now - wall]
end

def measure(kind, argv)
  children = Array.new(COUNT) { Rackbench::ProcessControl::Child.spawn(argv, log_path: File::NULL) }
  pids = children.map(&:pid)
  sleep 0.5 # let them finish starting
  roles = lambda do # as Sampler.roles_for does for a server: walk the children of the root
    found = Rackbench::Sampling::Sampler.walk([Process.pid]).select { |e| pids.include?(e.pid) }
    { "master" => found.first(1), "worker" => found.drop(1) }
  end
  sampler = Rackbench::Sampling::Sampler.new(roles: roles, interval: INTERVAL)
  idle_cpu, idle_wall = window(SECONDS)
  busy_cpu, busy_wall = window(SECONDS) { sampler.start }
  report(kind, sampler.stop, idle_cpu / idle_wall, busy_cpu / busy_wall)
ensure
  children&.each { |c| c.stop("TERM", timeout: 2) }
end

def report(kind, summary, idle, busy)
  thread_pct = 100.0 * summary.sampler_cpu_seconds / summary.duration
  added_pct = 100.0 * (busy - idle)
  memory_reads = summary.samples.count { |s| s.readings.any?(&:pss) }
  puts "#{COUNT} idle #{kind} processes (CPU every #{summary.interval} s, " \
       "smaps every #{Rackbench::Sampling::Sampler::MEMORY_INTERVAL} s+, " \
       "discovery every #{Rackbench::Sampling::Sampler::DISCOVER_INTERVAL} s+):"
  puts format("  %d samples (%d with smaps) in %.2f s, %d missed ticks, %d processes on the machine",
              summary.samples.size, memory_reads, summary.duration, summary.missed_ticks,
              Rackbench::System::ProcessTree.all.size)
  puts format("  sampling thread: %.3f s CPU = %.2f%% of one core (%.2f ms per sample) = %.2fx the %.0f%% target",
              summary.sampler_cpu_seconds, thread_pct, 1000.0 * summary.sampler_cpu_seconds / summary.samples.size,
              thread_pct / TARGET_PCT, TARGET_PCT)
  puts format("  whole process:   %.2f%% of one core sampling vs %.2f%% idle = %.2f%% added = %.2fx the target",
              100.0 * busy, 100.0 * idle, added_pct, added_pct / TARGET_PCT)
  puts format("  footprint: PSS %.1f MB vs summed RSS %.1f MB", summary.pss_total / 1024.0**2,
              summary.rss_sum / 1024.0**2)
end

kinds = ARGV.fetch(1, "both") == "both" ? KINDS.keys : [ARGV[1]]
kinds.each { |kind| measure(kind, KINDS.fetch(kind)) }
