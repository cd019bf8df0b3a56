# frozen_string_literal: true

require "etc"
require_relative "finding"
require_relative "load"
require_relative "process_control/owner_mark"
require_relative "process_control/stop"
require_relative "runtime/jruby_status"
require_relative "server"
require_relative "sampling/noise"

module Rackbench
  # Checks of this machine that decide whether benchmark numbers can be
  # trusted. Each finding has a level (ok, warn, fail) and says what to do.
  class Doctor
    Finding = Rackbench::Finding

    def initialize(max_concurrency: 32, proc_root: "/proc", sys_root: "/sys", engine: Load.default,
                   orphans: -> { ProcessControl::OwnerMark.orphans }, jruby: Runtime::Jruby.default,
                   noise: -> { Sampling::Noise.measure(window: 1.0) }, engines: nil)
      @noise = noise
      @engines = engines
      @max_concurrency = max_concurrency
      @proc = proc_root
      @sys = sys_root
      @engine = engine
      @orphans = orphans
      @jruby = jruby
    end

    def findings
      [default_program, *engines, cores, governor, open_files, swap, load_average, quiet, yjit,
       Runtime::JrubyStatus.finding(@jruby, Server.on_runtime("jruby")), leftovers].compact
    end

    private

    # Servers, nginx or wrk that a killed rackbench (SIGKILL, a closed
    # container) left running: they take CPU, memory and ports from the next
    # benchmark. Only processes provably started by a rackbench that no
    # longer runs are touched (ProcessControl::OwnerMark); they are stopped.
    def leftovers
      left = @orphans.call
      return Finding.new(level: :ok, topic: "leftovers", text: "no process left running by a killed rackbench") if left.empty?

      what = ProcessControl::Stop.describe(left)
      ProcessControl::Stop.processes(left)
      Finding.new(level: :warn, topic: "leftovers",
                  text: "stopped #{left.size} process(es) a killed rackbench had left running: #{what}")
    end

    # The default engine's program (wrk): every command but --engine's others needs it.
    def default_program
      program = Load.registration(Load.default_name).process
      return Finding.new(level: :fail, topic: program, text: "not found on PATH: run bin/setup (or apt-get install #{program})") unless @engine.available?

      Finding.new(level: :ok, topic: program, text: "version #{@engine.version}")
    end

    # The other load programs (ab, siege, h2load): each only for its own
    # --engine, so a missing one is a warning, never a failure.
    # engines: {topic => engine} (default: each program's first engine).
    def engines
      others = @engines || Load.programs.except(Load.registration(Load.default_name).process).to_h { |program, names| [program, Load.engine(names.first)] }
      others.map do |topic, engine|
        next Finding.new(level: :ok, topic: topic, text: "version #{engine.version}") if engine.available?

        hint = engine.class.const_defined?(:NOT_FOUND) ? engine.class::NOT_FOUND : "#{topic} not found on PATH"
        Finding.new(level: :warn, topic: topic, text: "#{hint}; needed only for --engine #{engine.name}")
      end
    end

    def cores
      n = Etc.nprocessors
      text = "#{n} cores; the load generator shares them with the server under test"
      text += ": keep --threads low, separate them with --cpus auto and read the client CPU share in each trial" if n <= 4
      Finding.new(level: n <= 2 ? :warn : :ok, topic: "cores", text: text)
    end

    def governor
      path = "#{@sys}/devices/system/cpu/cpu0/cpufreq/scaling_governor"
      return Finding.new(level: :ok, topic: "cpu governor", text: "not visible here (virtual machine or container)") unless File.exist?(path)

      gov = File.read(path).strip
      return Finding.new(level: :ok, topic: "cpu governor", text: gov) if gov == "performance"

      Finding.new(level: :warn, topic: "cpu governor",
                  text: "#{gov}: clock speed varies with load; for steadier numbers run `cpupower frequency-set -g performance`")
    end

    def open_files
      soft, = Process.getrlimit(:NOFILE)
      need = @max_concurrency * 2 + 64
      return Finding.new(level: :ok, topic: "open files", text: "limit #{soft} (need about #{need})") if soft >= need

      Finding.new(level: :warn, topic: "open files",
                  text: "limit #{soft} is below about #{need} for concurrency #{@max_concurrency}: run `ulimit -n #{need * 2}` first")
    end

    def swap
      info = meminfo
      used = info["SwapTotal"].to_i - info["SwapFree"].to_i # kB
      return Finding.new(level: :ok, topic: "swap", text: "none in use") if used <= 0

      Finding.new(level: :warn, topic: "swap", text: "#{used / 1024} MiB in use: memory figures and latency suffer; free memory first")
    end

    def load_average
      one = File.read("#{@proc}/loadavg").split.first.to_f
      busy = one > Etc.nprocessors * 0.25
      text = "1-minute load #{one}"
      text += ": other processes are busy; stop them or expect noisy numbers (raise --repeat)" if busy
      Finding.new(level: busy ? :warn : :ok, topic: "load", text: text)
    rescue Errno::ENOENT
      nil
    end

    # Other processes' CPU now, over one second (Sampling::Noise), naming the busiest.
    def quiet
      reading = @noise.call
      return nil unless reading&.foreign_pct

      return Finding.new(level: :ok, topic: "quiet", text: "#{reading.describe} (quiet: at most #{Sampling::Noise::QUIET_PCT.round}%)") if reading.quiet?

      Finding.new(level: :warn, topic: "quiet", text: "#{reading.describe}: they take CPU from the server and the load " \
                                                      "generator; stop them, or use --cpus auto and raise --repeat")
    end

    def yjit
      return Finding.new(level: :ok, topic: "yjit", text: "not available in this Ruby (#{RUBY_VERSION})") unless defined?(RubyVM::YJIT)

      Finding.new(level: :ok, topic: "yjit", text: "available (#{RubyVM::YJIT.enabled? ? 'on' : 'off'} in rackbench itself)")
    end

    def meminfo
      File.foreach("#{@proc}/meminfo").to_h { |l| l.split(":").then { |k, v| [k, v.to_i] } } # kB
    rescue Errno::ENOENT
      {}
    end
  end
end
