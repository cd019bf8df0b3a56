# frozen_string_literal: true

require "etc"
require "json"
require "rbconfig"
require_relative "error"
require_relative "process_control/child"
require_relative "process_control/affinity"

module Rackbench
  # A CPU-speed calibration: how fast this machine runs one fixed piece of
  # Ruby right now. Every measuring command (run, capacity, tune) takes one
  # at its start and one at its end (CLI::Measuring, calibration.jsonl), so
  # `rackbench compare` can say when two runs were made at different speeds,
  # or when one run's speed moved while it ran.
  #
  # Method: PROCESSES fresh Ruby processes, one after another, each running
  # fib(22) over and over for SECONDS (calibration/fib.rb); the reading is
  # the median over the processes of iterations per CPU-second of the
  # process (CLOCK_PROCESS_CPUTIME_ID). Fresh processes, because a long-lived
  # one warms up and keeps one memory layout; each is pinned with taskset to
  # the first CPU rackbench may use (the same CPU every time, no migration),
  # with address-space randomisation off (setarch -R, where the kernel
  # allows it: a container's seccomp may not), so that every calibration
  # runs the same code at the same addresses and the figure follows the
  # CPU, not the layout a boot drew (fresh processes of fib(25) varied
  # 6.5-13.5% with randomisation on and 1.9% with it off on a quiet 16-core
  # machine). The environment is emptied but for PATH (no RUBYOPT, no YJIT).
  # Per CPU-second, because a process that shares the CPU at that moment
  # takes wall time, not CPU time; the wall-clock rate and the CPU share are
  # stored beside it.
  #
  # Limits: 0.3 s of work on one core (0.45-0.8 s in all with the
  # process starts, measured here under load) samples one moment. It follows clock
  # frequency, a busy SMT sibling, cache pressure and a host that slows its
  # guests, and the interpreter's speed on a call-heavy loop; not memory
  # bandwidth, I/O or the network. Steal (the hypervisor running someone
  # else) is left out of a process's CPU time on kernels that account it:
  # it shows as a CPU share below 1, and per trial as machine.steal_pct.
  # With other processes busy on this 2-core machine (load average 2.2),
  # 15 readings in a row varied with a CV of 11% (one process for 0.3 s:
  # 10%); a difference of that order is not evidence by itself.
  # Between machines with different Ruby builds it compares the builds too.
  module Calibration
    WORKLOAD = File.expand_path("calibration/fib.rb", __dir__)
    NAME = "fib(22)"
    PROCESSES = 3
    SECONDS = 0.1
    TIMEOUT_S = 10
    RUBY_FLAGS = %w[--disable=gems,did_you_mean,error_highlight,rubyopt].freeze

    module_function

    # One reading, as calibration.jsonl stores it (phase and time added by
    # the caller): "iterations_per_cpu_s" (the figure compared), "samples"
    # (each process's), "iterations_per_s" (wall clock), "cpu_share",
    # "cpu" (the CPU pinned to, nil without taskset), "aslr" ("off" with
    # setarch -R), "workload", "ruby"; or {"error" => why} when no process
    # gave a figure.
    def measure(log_path:, cpus: ProcessControl::Affinity.usable_cpus, processes: PROCESSES, seconds: SECONDS)
      cpu = ProcessControl::Affinity.taskset? ? cpus.first : nil
      runs = Array.new(processes) { run(log_path, cpu, seconds) }.compact
      return { "error" => "no calibration process gave a figure (see #{log_path})" } if runs.empty?

      rates = runs.map { |r| r["iterations"] / r["cpu_s"] }
      wall = runs.sum { |r| r["wall_s"] }
      { "workload" => "#{NAME} for #{seconds} s in each of #{processes} fresh Ruby processes", "iterations_per_cpu_s" => median(rates).round(2),
        "samples" => rates.map { |r| r.round(2) }, "iterations_per_s" => (runs.sum { |r| r["iterations"] } / wall).round(2),
        "cpu_share" => (runs.sum { |r| r["cpu_s"] } / wall).round(3), "cpu" => cpu, "aslr" => setarch? ? "off" : "on",
        "ruby" => RUBY_DESCRIPTION }
    end

    # One fresh process: its JSON line, or nil (it failed or timed out; its
    # output is in the log). When a process under setarch gives nothing and
    # one without it does, setarch is dropped for this and every later
    # calibration of this rackbench (a kernel that refuses it).
    def run(log_path, cpu, seconds)
      result = spawn_one(log_path, cpu, seconds)
      return result if result || !setarch?

      @setarch = false
      spawn_one(log_path, cpu, seconds).tap { |again| @setarch = nil if again.nil? }
    end

    def spawn_one(log_path, cpu, seconds)
      offset = File.size?(log_path).to_i
      argv = [*(setarch? ? ["setarch", Etc.uname[:machine], "-R"] : []), RbConfig.ruby, *RUBY_FLAGS, WORKLOAD, seconds.to_s]
      child = ProcessControl::Child.spawn(argv, env: { "PATH" => ENV.fetch("PATH", "") }, unsetenv_others: true,
                                                log_path: log_path, cpus: cpu && [cpu])
      done = child.wait(TIMEOUT_S)
      child.stop("KILL", timeout: 1)
      done ? parse(File.binread(log_path, nil, offset)) : nil
    rescue Error, SystemCallError
      nil
    end

    def parse(output)
      line = output.to_s.lines.reverse.find { |l| l.start_with?("{") } or return nil
      figures = JSON.parse(line)
      figures if figures["iterations"].to_i.positive? && figures["cpu_s"].to_f.positive?
    rescue JSON::ParserError
      nil
    end

    def setarch?
      @setarch = ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).any? { |d| File.executable?(File.join(d, "setarch")) } if @setarch.nil?
      @setarch
    end

    def median(values)
      sorted = values.sort
      mid = sorted.size / 2
      sorted.size.odd? ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0
    end
  end
end
