# frozen_string_literal: true

# The CPU-speed calibration's workload (Rackbench::Calibration), run as a
# fresh Ruby process: the naive recursive fib(22) (57,313 calls, no
# allocation, no library) over and over for ARGV[0] seconds, then one JSON
# line: the iterations, the wall-clock seconds and the process's CPU
# seconds over the same span. Plain Ruby, so it starts in ~20 ms with
# --disable=gems.

def fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)

seconds = Float(ARGV.fetch(0, "0.1"))
wall = Process::CLOCK_MONOTONIC
cpu = Process::CLOCK_PROCESS_CPUTIME_ID
wall0 = Process.clock_gettime(wall)
cpu0 = Process.clock_gettime(cpu)
iterations = 0
now = wall0
while now - wall0 < seconds
  fib(22)
  iterations += 1
  now = Process.clock_gettime(wall)
end
cpu_s = Process.clock_gettime(cpu) - cpu0
$stdout.puts format('{"iterations":%d,"wall_s":%.6f,"cpu_s":%.6f}', iterations, now - wall0, cpu_s)
