# frozen_string_literal: true

require "securerandom"
require "uri"
require_relative "base"
require_relative "puma_knobs"
require_relative "puma_stats"

module Rackbench
  module Server
    # Puma: "puma xW:T". W > 1 runs cluster mode (preloaded unless
    # "nopreload"); W = 1 runs single mode (one process), as Puma itself
    # recommends over a one-worker cluster. Graceful stop: TERM.
    #
    # The command line suits the Puma in the app's bundle (its lock file):
    # `--no-config` exists from 5.5 (older ones reject it; `-C -` means the
    # same from 2.8, and before 2.8 Puma looked for no config file), and from
    # 7.0 cluster mode preloads by default, so "nopreload" needs a config
    # file saying `preload_app! false` (there is no flag for it).
    #
    # From 5.0 rackbench writes that config file always, to start Puma's
    # control app (its /stats: backlog, busy threads, requests per worker;
    # read by PumaStats) on a port the kernel picks, with a token
    # passed in the environment (so no stored file or command line holds it),
    # and to make workers report to the master every second instead of 5 s.
    #
    # Its newer knobs are setup words ("puma x2:5 fibers", "puma x2:5 io:4",
    # "puma auto:5"; PumaKnobs), written into that file; a Puma older than a
    # knob refuses the setup before anything boots (unsupported).
    class Puma < Base
      KEY = "puma"
      CONTROL_TOKEN_VAR = "RACKBENCH_PUMA_CONTROL_TOKEN"
      STATS_FROM = "5.0" # worker_check_interval
      register order: 1, tune_default: true

      def self.threads = 5
      def self.default_label(cores) = "puma x#{cores}:5"
      def self.footprint_label = "puma x2:1"
      def self.deploy_command(_setup) = "bundle exec puma -C config/puma.rb"
      def self.no_tls = nil
      def self.setup_word(word) = PumaKnobs.word(word)
      def self.setup_words = PumaKnobs::WORDS
      def self.check_words!(text, options:, **) = PumaKnobs.check!(text, options)
      def self.ladder_option = ["--puma-threads LIST", "Puma thread counts to try"] # tune: replaces thread_ladder

      # config/puma.rb: workers, threads min = max, preload_app!, bind.
      def self.deploy_files(setup, comment)
        cluster = setup.workers > 1 || setup.option("auto")
        lines = [comment, ""]
        lines << (cluster ? "workers #{setup.workers}" : "# single mode (one process): no workers, nothing to preload") unless setup.option("auto")
        lines << "threads #{setup.threads}, #{setup.threads}"
        lines += PumaKnobs.lines(setup)
        lines << "preload_app!" if cluster && setup.preload
        lines << 'bind "tcp://0.0.0.0:#{ENV.fetch("PORT", "3000")}"' # rubocop:disable Lint/InterpolationCheck -- Ruby for the file
        lines << 'environment ENV.fetch("RACK_ENV", "production")'
        { "config/puma.rb" => "#{lines.join("\n")}\n" }
      end

      def env(setup)
        stats? ? super.merge(CONTROL_TOKEN_VAR => control_token) : super
      end

      # The control app's token (one per adapter, so per boot).
      def control_token
        @control_token ||= SecureRandom.hex(16)
      end

      # Whether this Puma runs the control app rackbench reads.
      def stats?
        at_least?(STATS_FROM)
      end

      # The control app's reader, found beside the server's port (pid: the master, or the one process).
      def stats_reader(pid:, port:)
        return [nil, "Puma #{version} is older than #{STATS_FROM} (no stats rackbench reads)"] unless stats?

        control = PumaStats.control_port(pid, port) or return [nil, "Puma's control app was not found listening"]
        [PumaStats.new(port: control, token: control_token, pid: pid), nil]
      end

      # tls: an ssl:// bind with the run's key and certificate (clients' certificates not asked for).
      def argv(setup, app:, port:, dir:, host: "127.0.0.1", tls: nil)
        bind = tls ? "ssl://#{host}:#{port}?#{URI.encode_www_form(key: tls.key_path, cert: tls.cert_path, verify_mode: 'none')}" : "tcp://#{host}:#{port}"
        cmd = [*launch(setup), *config_args(setup, dir), "-e", "production", "-b", bind,
               "-t", "#{setup.threads}:#{setup.threads}", "--pidfile", File.join(dir, "puma.pid"),
               "--tag", "rackbench"]
        cmd += ["-w", setup.workers.to_s] unless runs_one_process?(setup) || setup.option("auto") # auto: the file's workers :auto
        cmd << "--preload" if setup.preload && !runs_one_process?(setup)
        cmd << app
      end

      def files(setup, port:, dir:, tls: nil)
        lines = []
        lines += stats_config if stats?
        lines += ["# rackbench: \"nopreload\" (Puma >= 7 preloads clusters by default)", "preload_app! false"] if preload_off_by_file?(setup)
        lines += PumaKnobs.lines(setup).map { |l| l.sub(" # ", " # rackbench: ") }
        lines.empty? ? {} : { config_path(dir) => "#{lines.join("\n")}\n" }
      end

      # "auto" is a cluster even of one worker (Puma's workers :auto forks).
      def runs_one_process?(setup)
        setup.workers == 1 && !setup.option("auto")
      end

      def unsupported(setup, cpus: nil)
        PumaKnobs.unsupported(setup, version, @app, cpus: cpus)
      end

      private

      def config_args(setup, dir)
        return ["-C", config_path(dir)] if preload_off_by_file?(setup) || stats? || PumaKnobs.lines(setup).any?
        return ["--no-config"] if at_least?("5.5")

        at_least?("2.8") ? ["-C", "-"] : []
      end

      def stats_config
        ["# rackbench: Puma's control app for its stats, on a port the kernel picks (token from the environment)",
         "activate_control_app \"tcp://127.0.0.1:0\", { auth_token: ENV.fetch(#{CONTROL_TOKEN_VAR.inspect}) }",
         "# rackbench: workers report their stats every second (default 5 s)",
         "worker_check_interval 1 if respond_to?(:worker_check_interval)"]
      end

      def preload_off_by_file?(setup)
        !setup.preload && !runs_one_process?(setup) && at_least?("7.0")
      end

      def config_path(dir)
        File.join(dir, "puma.rb")
      end

      # An unknown version (not installed yet) counts as current.
      def at_least?(release)
        v = version
        v.nil? || Gem::Version.new(v) >= Gem::Version.new(release)
      rescue ArgumentError
        true
      end
    end
  end
end
