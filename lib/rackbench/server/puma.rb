# frozen_string_literal: true

require_relative "base"

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
    class Puma < Base
      KEY = "puma"
      register order: 1

      def self.threads = 5
      def self.default_label(cores) = "puma x#{cores}:5"
      def self.footprint_label = "puma x2:1"
      def self.deploy_command(_setup) = "bundle exec puma -C config/puma.rb"

      # config/puma.rb: workers, threads min = max, preload_app!, bind.
      def self.deploy_files(setup, comment)
        cluster = setup.workers > 1
        lines = [comment, ""]
        lines << (cluster ? "workers #{setup.workers}" : "# single mode (one process): no workers, nothing to preload")
        lines << "threads #{setup.threads}, #{setup.threads}"
        lines << "preload_app!" if cluster && setup.preload
        lines << 'bind "tcp://0.0.0.0:#{ENV.fetch("PORT", "3000")}"' # rubocop:disable Lint/InterpolationCheck -- Ruby for the file
        lines << 'environment ENV.fetch("RACK_ENV", "production")'
        { "config/puma.rb" => "#{lines.join("\n")}\n" }
      end

      def argv(setup, app:, port:, dir:)
        cmd = [*launch(setup), *config_args(setup, dir), "-e", "production", "-b", "tcp://127.0.0.1:#{port}",
               "-t", "#{setup.threads}:#{setup.threads}", "--pidfile", File.join(dir, "puma.pid"),
               "--tag", "rackbench"]
        cmd += ["-w", setup.workers.to_s] unless single_process?(setup)
        cmd << "--preload" if setup.preload && !single_process?(setup)
        cmd << app
      end

      def files(setup, port:, dir:)
        return {} unless preload_off_by_file?(setup)

        { config_path(dir) => "# rackbench: \"nopreload\" (Puma >= 7 preloads clusters by default)\npreload_app! false\n" }
      end

      def single_process?(setup)
        setup.workers == 1
      end

      def expected_workers(setup)
        single_process?(setup) ? 0 : setup.workers
      end

      private

      def config_args(setup, dir)
        return ["-C", config_path(dir)] if preload_off_by_file?(setup)
        return ["--no-config"] if at_least?("5.5")

        at_least?("2.8") ? ["-C", "-"] : []
      end

      def preload_off_by_file?(setup)
        !setup.preload && !single_process?(setup) && at_least?("7.0")
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
