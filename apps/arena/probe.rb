# frozen_string_literal: true

require "json"

module Rackbench
  module Workload
    module Arena
      # An in-process probe (Rack middleware): each process that serves
      # requests counts them and writes, every INTERVAL, its request count and
      # GC figures (GC.stat count, minor/major counts, time in ms) to
      # DIR/PID.json (written whole, then renamed, so a reader never sees half
      # a file), stamped with CLOCK_MONOTONIC, which every process on the
      # machine shares. rackbench reads the files at a trial's start and end
      # (Sampling::ProbeFiles) for requests served and GC per worker.
      #
      # On only when RACKBENCH_PROBE_DIR is set: rackbench sets it for its
      # built-in apps, never for a user's app. Cost: one integer increment per
      # request; the writer thread wakes 10 times a second and starts on a
      # process's first request (so a forked worker gets its own).
      class Probe
        ENV_KEY = "RACKBENCH_PROBE_DIR"
        INTERVAL = 0.1

        def self.wrap(app, env = ENV)
          dir = env[ENV_KEY]
          dir.nil? || dir.empty? ? app : new(app, dir)
        end

        def initialize(app, dir)
          @app = app
          @dir = dir
          @requests = 0
          @pid = nil
        end

        def call(env)
          start unless @pid == Process.pid
          @requests += 1
          @app.call(env)
        end

        # Stops this process's writer (the server's exit does it otherwise).
        def close
          @thread&.kill&.join
        end

        def snapshot
          { pid: Process.pid, t: Process.clock_gettime(Process::CLOCK_MONOTONIC), requests: @requests,
            gc_count: GC.count, gc_minor: GC.stat(:minor_gc_count), gc_major: GC.stat(:major_gc_count),
            gc_time_ms: gc_time }
        end

        private

        # A forked process starts its own count and writer (threads do not survive fork).
        def start
          @pid = Process.pid
          @requests = 0
          path = File.join(@dir, "#{@pid}.json")
          @thread = Thread.new { loop { write(path) || break; sleep INTERVAL } }
          @thread.report_on_exception = false
        end

        # false once the directory is gone (the probe gives up quietly).
        def write(path)
          tmp = "#{path}.tmp"
          File.write(tmp, JSON.generate(snapshot))
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
