# frozen_string_literal: true

require_relative "../error"
require_relative "arena"

module Rackbench
  module Workload
    # The app under test: the built-in arena, or the user's own (--app PATH,
    # a config.ru or a directory holding one, e.g. a Rails root). The names
    # "arena" and "rails" are the built-in apps (apps/rails: seed 000's
    # endpoints in a minimal Rails app with its own bundle); write ./rails
    # for a directory of that name.
    #
    # A user's app with a Gemfile runs inside its own bundle (`bundle exec`),
    # in a clean environment: none of rackbench's BUNDLE_* or RUBYOPT leak in
    # (as Puma's tests and Falcon do), RAILS_ENV/RACK_ENV are production and a
    # SECRET_KEY_BASE is generated when none is set.
    class App
      LEAKY = /\A(BUNDLE_|BUNDLER_|RUBYOPT\z|RUBYLIB\z|GEM_HOME\z|GEM_PATH\z)/.freeze
      RAILS_APP = File.join(APPS_DIR, "rails")

      # A commit of the user's app checked out by rackbench (run --ref, a
      # bisection's step): its short sha and the user's own app directory.
      Checkout = Struct.new(:short, :root, keyword_init: true)

      attr_reader :config_ru, :root, :gemfile, :checkout

      def self.arena
        new(config_ru: Arena::CONFIG_RU, arena: true)
      end

      BUILT_IN = %w[arena rails].freeze

      # An --app value as the user gave it, made absolute against base (the
      # working directory, or a plan file's own directory): servers run in
      # the app's directory, so a relative path would point nowhere there.
      # The built-in names stay names; "./rails" is a directory.
      # A path to a built-in app's directory or config.ru (`--app apps/rails`
      # in the clone) is that app's name: it gets the built-in app's default
      # endpoints, not a user's app's "/".
      def self.expand(path, base: Dir.pwd)
        return path if BUILT_IN.include?(path)
        raise UsageError, "--app is empty: give your app's config.ru or its directory (a Rails root)" if path.to_s.strip.empty?

        full = File.expand_path(path, base)
        BUILT_IN.find { |name| built_in_paths(name).include?(full) } || full
      end

      def self.built_in_paths(name)
        dir = File.join(APPS_DIR, name)
        [dir, File.join(dir, "config.ru")]
      end

      def self.resolve(path)
        return arena if path.nil? || path == "arena" # Config::BUILT_IN_APPS: arena, rails

        path = RAILS_APP if path == "rails"

        ru = File.directory?(path) ? File.join(path, "config.ru") : path
        unless File.file?(ru) && ru.end_with?(".ru")
          raise UsageError, "--app #{path.inspect} must be a config.ru file or a directory holding one (a Rails root)"
        end

        new(config_ru: File.expand_path(ru))
      end

      # root: the app's directory, where its server runs (default: the
      # config.ru's); probed_from: the user's own config.ru when config_ru
      # is the --probe wrapper (ProbeWrapper) in front of it.
      # checkout: a Checkout when this is rackbench's worktree of a commit.
      def initialize(config_ru:, arena: false, root: nil, probed_from: nil, checkout: nil)
        @config_ru = config_ru
        @checkout = checkout
        @root = root || File.dirname(config_ru)
        @arena = arena
        @probed_from = probed_from
        gemfile = File.join(@root, "Gemfile")
        @gemfile = !arena && File.file?(gemfile) ? gemfile : nil
      end

      def arena?
        @arena
      end

      # Runs behind the --probe wrapper (ProbeWrapper).
      def probed?
        !@probed_from.nil?
      end

      # The same app loaded through wrapper, a config.ru elsewhere, still run in this app's directory.
      def probed_by(wrapper)
        self.class.new(config_ru: wrapper, arena: @arena, root: @root, probed_from: @config_ru, checkout: @checkout)
      end

      def bundled?
        !@gemfile.nil?
      end

      # Extra environment for a server process (nil values unset a variable).
      def env(base = ENV)
        return {} if arena?

        env = { "RACK_ENV" => "production", "RAILS_ENV" => "production" }
        env["SECRET_KEY_BASE"] = Random.new.bytes(64).unpack1("H*") unless base["SECRET_KEY_BASE"]
        return env unless bundled?

        bundle_env(base).merge(env)
      end

      # The environment of a command run in the app's own bundle: rackbench's
      # Bundler variables unset, the app's Gemfile named.
      def bundle_env(base = ENV)
        base.keys.grep(LEAKY).to_h { |k| [k, nil] }.merge("BUNDLE_GEMFILE" => @gemfile)
      end

      def locked?
        bundled? && File.file?("#{@gemfile}.lock")
      end

      # Does the Gemfile itself list gem (`gem "puma"`)?
      def names_gem?(gem)
        bundled? && File.foreach(@gemfile).any? { |l| l.match?(/\A\s*gem\s+["']#{Regexp.escape(gem)}["']/) }
      end

      # The version of gem in the app's Gemfile.lock, or nil when absent.
      def locked_version(gem)
        lock = "#{@gemfile}.lock"
        return nil unless bundled? && File.file?(lock)

        File.foreach(lock) { |l| return Regexp.last_match(1) if l =~ /\A    #{Regexp.escape(gem)} \(([^)]+)\)/ }
        nil
      end

      def to_h
        return { "config_ru" => @config_ru, "arena" => arena?, "gemfile" => @gemfile } unless probed?

        { "config_ru" => @probed_from, "arena" => arena?, "gemfile" => @gemfile, "probe_wrapper" => @config_ru }
      end
    end
  end
end
