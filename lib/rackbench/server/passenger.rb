# frozen_string_literal: true

require "json"
require "shellwords"
require_relative "base"
require_relative "../system/process_tree"

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
    #
    # An app with a Gemfile runs on a --ruby wrapper that loads bundler/setup
    # before Passenger's loader (see bundled_ruby).
    class Passenger < Base
      KEY = "passenger"
      BINARY = File.executable?("/usr/bin/passenger") ? "/usr/bin/passenger" : "passenger"
      register order: 4

      def self.default_label(cores) = "passenger x#{cores}"
      def self.no_tls = "the builtin engine of Passenger Standalone, which rackbench runs, serves no TLS (its nginx engine does)"
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
        [@binary, "start", app_root(app), "--engine", "builtin", "--address", host,
         "--port", port.to_s, "--environment", "production", "--rackup", app,
         "--ruby", @app&.bundled? ? ruby_wrapper(dir) : ruby,
         "--min-instances", setup.workers.to_s, "--max-pool-size", setup.workers.to_s,
         "--spawn-method", setup.preload ? "smart" : "direct",
         "--disable-security-update-check", "--disable-anonymous-telemetry",
         "--log-file", log_files(dir).first, "--pid-file", pid_file(dir),
         "--no-friendly-error-pages"]
      end

      def log_files(dir)
        [File.join(dir, "passenger.log")]
      end

      def files(_setup, port:, dir:)
        @app&.bundled? ? { ruby_wrapper(dir) => bundled_ruby } : {}
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

      # Passenger's own processes are titled "Passenger ..." or run its
      # PassengerAgent (watchdog, core, temp-dir-toucher); the app's are
      # "Passenger RubyApp: ...", spawned by Passenger too.
      def helper?(cmdline)
        cmdline.start_with?("Passenger", "PassengerAgent") || cmdline.include?("/PassengerAgent ")
      end

      def worker?(entry, _master_pid)
        System::ProcessTree.cmdline(entry.pid).start_with?("Passenger RubyApp")
      end

      private

      def pid_file(dir)
        File.join(dir, "passenger.pid")
      end

      def ruby_wrapper(dir)
        File.join(dir, "passenger-ruby")
      end

      # Passenger's Ruby loader (rack-preloader.rb, rack-loader.rb) requires
      # its request handler before it sets up the app's bundle, and that
      # requires "stringio" (phusion_passenger/utils/tee_input.rb). RubyGems
      # then activates the default gem (stringio 3.0.1.2 on Debian's Ruby
      # 3.1), so the loader's own `require "bundler/setup"` fails on any
      # lockfile that pins another version, as Rails 7.2's does: "You have
      # already activated stringio 3.0.1.2, but your Gemfile requires
      # stringio 3.2.0". No Passenger option runs earlier (load_path_setup_file
      # and config/setup_load_paths.rb are read after that require).
      #
      # --ruby is an executable Passenger runs with the loader's path as its
      # argument, so this wrapper starts Ruby with -rbundler/setup: Bundler
      # activates the lockfile's versions first (as `bundle exec` does for
      # the other servers), the loader's `require "stringio"` then loads the
      # app's 3.2.0, and the loader's second bundler/setup is a no-op.
      # BUNDLE_GEMFILE names the app's Gemfile here, so the wrapper does not
      # depend on what Passenger passes on of its environment; RUBYOPT
      # (runtime flags) still reaches Ruby through exec. Passenger also runs
      # its prespawn helper with --ruby, which works in the app's bundle too.
      def bundled_ruby
        <<~SH
          #!/bin/sh
          # rackbench: Passenger's --ruby for an app with a Gemfile. Bundler sets up
          # the app's bundle before Passenger's loader activates any default gem.
          BUNDLE_GEMFILE=#{Shellwords.escape(@app.gemfile)} exec #{Shellwords.escape(ruby)} -rbundler/setup "$@"
        SH
      end
    end
  end
end
