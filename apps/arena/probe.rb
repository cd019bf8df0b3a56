# frozen_string_literal: true

module Rackbench
  module Workload
    module Arena
      # An in-process probe (Rack middleware): each process that serves
      # requests counts them and the time they took, and writes its totals
      # every INTERVAL to DIR/PID.json (written whole, then renamed, so a
      # reader never sees half a file), stamped with CLOCK_MONOTONIC, which
      # every process on the machine shares. rackbench reads the files at a
      # trial's start and end (Sampling::ProbeFiles) and keeps the difference.
      #
      # Per process, cumulative:
      # - requests, and wall_s: CLOCK_MONOTONIC around the app's call (the
      #   body is built by then for most apps; a streamed body's later chunks
      #   are not timed);
      # - cpu_s: CLOCK_THREAD_CPUTIME_ID around the same call: CPU the
      #   request's thread ran, GC it triggered included, time waiting for
      #   the GVL, IO or sleep excluded. Ruby 3.1 cannot tell those waits
      #   apart (the GVL instrumentation API is 3.2+ and C only), so wall less
      #   CPU is "waiting, not in Ruby". shared counts requests that began
      #   while another was in flight on the same thread (fibers: Falcon):
      #   their thread clock includes the other fibers' CPU, so rackbench
      #   then takes process_cpu_s (CLOCK_PROCESS_CPUTIME_ID) over the requests;
      # - runq_s: where Linux tells it (/proc/self/task/TID/schedstat, its
      #   second field), the time the request threads spent runnable but
      #   waiting for a CPU (the run queue), summed over every thread that
      #   served a request, read by the writer thread, not per request. Part
      #   of wall less CPU: what of "waiting" was a CPU's, not IO's or sleep's
      #   (a thread waiting for the GVL sleeps: not in it);
      # - GC: GC.count, minor and major counts, GC.stat(:time) in ms;
      # - in a Rails app, ProbeRails adds SQL and view time and the Active
      #   Record pool (see probe_rails.rb).
      #
      # On only when RACKBENCH_PROBE_DIR is set: rackbench sets it for its
      # built-in apps, and for a user's app with --probe (a generated
      # config.ru puts this middleware in front of it). Cost per request:
      # four clock reads and one mutex (bench/probe_overhead.rb); the writer
      # thread wakes 10 times a second and starts on a process's first
      # request (so a forked worker gets its own). Needs nothing but Ruby:
      # it runs inside the user's bundle.
      class Probe
        ENV_KEY = "RACKBENCH_PROBE_DIR"
        INTERVAL = 0.1
        IN_FLIGHT = :rackbench_probe_in_flight # a thread variable: shared by the thread's fibers
        STARTING = Mutex.new # a process's first requests may come on several threads at once
        TASKS = "/proc/self/task"

        def self.wrap(app, env = ENV)
          dir = env[ENV_KEY]
          dir.nil? || dir.empty? ? app : new(app, dir)
        end

        def initialize(app, dir)
          @app = app
          @dir = dir
          @pid = nil
          @lock = Mutex.new
          @extras = []
          zero
        end

        def call(env)
          start unless @pid == Process.pid
          thread = Thread.current
          shared = enter(thread)
          t0 = Process.clock_gettime(Process::CLOCK_MONOTONIC)
          c0 = self.class.cpu_now(THREAD_CPU)
          begin
            @app.call(env)
          ensure
            cpu = c0 ? self.class.cpu_now(THREAD_CPU) - c0 : 0.0
            wall = Process.clock_gettime(Process::CLOCK_MONOTONIC) - t0
            leave(thread, wall, cpu, shared)
          end
        end

        # A source of more figures (ProbeRails): #fields -> {name => number}.
        def add(extra)
          @extras << extra
          self
        end

        # Stops this process's writer (the server's exit does it otherwise).
        def close
          @thread&.kill&.join
        end

        def snapshot
          totals = @lock.synchronize { @totals.dup }
          { "pid" => Process.pid, "t" => Process.clock_gettime(Process::CLOCK_MONOTONIC), **totals,
            "process_cpu_s" => self.class.cpu_now(PROCESS_CPU)&.round(6),
            "gc_count" => GC.count, "gc_minor" => GC.stat(:minor_gc_count), "gc_major" => GC.stat(:major_gc_count),
            "gc_time_ms" => gc_time, **runq }.merge(*@extras.map(&:fields))
        end

        # The CPU clocks, where the Ruby has them (JRuby has neither: its
        # requests are then counted with 0 s of thread CPU and no process CPU).
        THREAD_CPU = defined?(Process::CLOCK_THREAD_CPUTIME_ID) ? Process::CLOCK_THREAD_CPUTIME_ID : nil
        PROCESS_CPU = defined?(Process::CLOCK_PROCESS_CPUTIME_ID) ? Process::CLOCK_PROCESS_CPUTIME_ID : nil
        NATIVE_TID = Thread.method_defined?(:native_thread_id) # Ruby >= 3.1

        def self.cpu_now(clock)
          clock && Process.clock_gettime(clock)
        rescue Errno::EINVAL, NotImplementedError
          nil
        end

        # One JSON object of numbers (no json library: the user's bundle decides which one loads).
        def self.json(hash)
          "{#{hash.map { |k, v| "\"#{k}\":#{v.nil? ? 'null' : v}" }.join(',')}}"
        end

        private

        def zero
          @totals = { "requests" => 0, "wall_s" => 0.0, "cpu_s" => 0.0, "shared" => 0 }
          @tids = {}  # thread -> its Linux task id, for every thread that served a request
          @waits = {} # task id -> its run-queue delay (ns) when last read
        end

        # {"runq_s" => seconds} summed over the request threads (the last
        # reading of a thread that has ended is kept); {} where there is no
        # schedstat (not Linux, or a Ruby without Thread#native_thread_id).
        def runq
          return {} unless File.directory?(TASKS)

          tids = @lock.synchronize { @tids.values }
          tids.each do |tid|
            wait = File.read("#{TASKS}/#{tid}/schedstat").split[1]
            @waits[tid] = wait.to_i if wait
          rescue SystemCallError
            next
          end
          @waits.empty? ? {} : { "runq_s" => (@waits.values.sum / 1e9).round(6) }
        end

        # true when another request is in flight on this thread (its fibers).
        def enter(thread)
          n = thread.thread_variable_get(IN_FLIGHT).to_i
          thread.thread_variable_set(IN_FLIGHT, n + 1)
          n.positive?
        end

        def leave(thread, wall, cpu, shared)
          thread.thread_variable_set(IN_FLIGHT, thread.thread_variable_get(IN_FLIGHT).to_i - 1)
          @lock.synchronize do
            @totals["requests"] += 1
            @totals["wall_s"] += wall
            @totals["cpu_s"] += cpu
            @totals["shared"] += 1 if shared
            @tids[thread] ||= thread.native_thread_id if NATIVE_TID
          end
        end

        # A forked process starts its own count and writer (threads do not survive fork).
        def start
          STARTING.synchronize do
            next if @pid == Process.pid

            @lock = Mutex.new
            zero
            @extras.each { |e| e.start if e.respond_to?(:start) }
            path = File.join(@dir, "#{Process.pid}.json")
            @thread = Thread.new { loop { write(path) || break; sleep INTERVAL } }
            @thread.report_on_exception = false
            @pid = Process.pid
          end
        end

        # false once the directory is gone (the probe gives up quietly).
        def write(path)
          @extras.each { |e| e.sample if e.respond_to?(:sample) }
          tmp = "#{path}.tmp"
          File.open(tmp, File::WRONLY | File::CREAT | File::TRUNC | File::NOFOLLOW, 0o644) { |f| f.write(Probe.json(snapshot)) } # never through a link
          File.rename(tmp, path)
          true
        rescue SystemCallError, IOError
          false
        end

        def gc_time
          GC.stat(:time) # Ruby >= 3.1
        rescue ArgumentError
          nil
        end
      end
    end
  end
end
