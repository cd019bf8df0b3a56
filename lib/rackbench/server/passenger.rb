# frozen_string_literal: true

require "json"
require_relative "base"

module Rackbench
  module Server
    # Passenger Standalone with its builtin engine (no nginx): "passenger xN"
    # runs N application processes (min = max = N), smart spawning (preloaded)
    # unless "nopreload". Security-update check and telemetry are off, so a
    # run makes no outside connection.
    #
    # From Debian's package (/usr/bin/passenger, prebuilt agent). The watchdog
    # daemonizes out of our process tree, so it is found through the pid file;
    # application processes are titled "Passenger RubyApp: ...". Graceful
    # stop: TERM to `passenger start`, which shuts its agents down.
    #
    # Its instance directory (Unix sockets) stays in Passenger's default
    # place (the temporary directory): a socket path must fit in 107 bytes,
    # which a run directory's path does not promise.
    class Passenger < Base
      KEY = "passenger"
      BINARY = File.executable?("/usr/bin/passenger") ? "/usr/bin/passenger" : "passenger"
      register order: 4

      def self.default_label(cores) = "passenger x#{cores}"
      def self.deploy_command(_setup) = "passenger start   (reads Passengerfile.json)"

      # JSON has no comments: the evidence is in recommendation.json beside it.
      def self.deploy_files(setup, _comment)
        json = JSON.pretty_generate(
          "environment" => "production", "port" => 3000, "engine" => "builtin",
          "min_instances" => setup.workers, "max_pool_size" => setup.workers,
          "spawn_method" => setup.preload ? "smart" : "direct",
          "disable_security_update_check" => true, "disable_anonymous_telemetry" => true
        )
        { "Passengerfile.json" => "#{json}\n" }
      end

      def initialize(app: nil, binary: BINARY)
        super(app: app)
        @binary = binary
      end

      def install_hint
        "apt-get install passenger (Debian's package), or run bin/setup"
      end

      def version
        out = IO.popen([@binary, "--version"], err: File::NULL, &:read)
        out[/(\d+\.\d+\.\d+)/, 1]
      rescue SystemCallError
        nil
      end

      def argv(setup, app:, port:, dir:, host: "127.0.0.1")
        [@binary, "start", File.dirname(app), "--engine", "builtin", "--address", host,
         "--port", port.to_s, "--environment", "production", "--rackup", app,
         "--ruby", ruby, "--min-instances", setup.workers.to_s, "--max-pool-size", setup.workers.to_s,
         "--spawn-method", setup.preload ? "smart" : "direct",
         "--disable-security-update-check", "--disable-anonymous-telemetry",
         "--log-file", log_files(dir).first, "--pid-file", pid_file(dir),
         "--no-friendly-error-pages"]
      end

      def log_files(dir)
        [File.join(dir, "passenger.log")]
      end

      # The watchdog's pid; its tree holds the core and the app processes.
      def extra_roots(dir)
        pid = File.read(pid_file(dir)).to_i
        pid.positive? ? [pid] : []
      rescue Errno::ENOENT
        []
      end

      # Passenger logs this when the app raised while loading; it then
      # serves an error page and starts no application process.
      def spawn_failed?(log)
        log.include?("Could not spawn process for application")
      end

      def worker?(entry, _master_pid)
        Sampling::ProcessTree.cmdline(entry.pid).start_with?("Passenger RubyApp")
      end

      private

      def pid_file(dir)
        File.join(dir, "passenger.pid")
      end
    end
  end
end
