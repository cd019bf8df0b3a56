# frozen_string_literal: true

require "rubygems"
require_relative "bundle_path"

module Rackbench
  module Workload
    # Which Bundler runs a user's bundle: the one its Gemfile.lock names
    # (`BUNDLED WITH 2.4.2`) when that version is installed, as the `bundle`
    # command of the user's shell picks it (RubyGems' BundlerVersionFinder
    # puts the lock's version first), so `bundle check` and `bundle exec` see
    # the bundle that `bundle install` made. Running this Ruby's Bundler on
    # another Bundler's lock refuses a correct bundle: Debian's Bundler 2.3.15
    # wants the `ruby`-platform gems (mini_portile2) of a lock written by
    # 2.4.2, which installed the linux gems.
    #
    # Bundler's own switch (Bundler::SelfManager) cannot be relied on here:
    # rackbench starts Bundler by its file path, and the switch re-runs that
    # same file. So the locked version's own `bundle` file is run.
    #
    # Where: the gem directories a child in the app's clean environment sees
    # (App#bundle_env unsets GEM_HOME/GEM_PATH, so RubyGems' defaults), and
    # first the app's BUNDLE_PATH (BundlePath): a `bundle install` by
    # Bundler 2.3+ on an app with `path vendor/bundle` installs the lock's
    # Bundler there (Bundler::SelfManager), and the user's `bundle` finds
    # it there (ruby-grape/grape-on-rack, BUNDLED WITH 2.4.2, issue 44).
    module AppBundler
      # The lock's last section: "\nBUNDLED WITH\n   2.4.2\n".
      BUNDLED_WITH = /^BUNDLED WITH\r?\n\s+(\d+(?:\.[0-9A-Za-z]+)*)\s*$/.freeze

      module_function

      # "2.4.2" from the app's Gemfile.lock, or nil (no lock, no section).
      def locked_version(app)
        gemfile = app.gemfile if app.respond_to?(:gemfile) # a stand-in app (tests) may have none
        lock = gemfile && "#{gemfile}.lock"
        return nil unless lock && File.file?(lock)

        parse(File.read(lock))
      rescue SystemCallError
        nil
      end

      def parse(text)
        text[BUNDLED_WITH, 1]
      end

      # The `bundle` file to run for app: the lock's Bundler when installed,
      # else this Ruby's.
      def bundle(app)
        installed(locked_version(app), app) || current
      end

      def current
        Gem.bin_path("bundler", "bundle")
      end

      def running_version
        Gem.loaded_specs["bundler"]&.version&.to_s || (defined?(::Bundler::VERSION) && ::Bundler::VERSION)
      end

      # The `bundle` file of Bundler version, or nil when it is not
      # installed in app's BUNDLE_PATH nor in gem_dirs.
      def installed(version, app = nil)
        return nil unless version
        return current if version == running_version

        [(BundlePath.gem_dir(app) if app.respond_to?(:root)), *gem_dirs].compact.each do |dir|
          spec_file = File.join(dir, "specifications", "bundler-#{version}.gemspec")
          next unless File.file?(spec_file)

          spec = Gem::Specification.load(spec_file)
          bin = spec&.bin_file("bundle")
          return bin if bin && File.file?(bin)
        end
        nil
      end

      # The lock's Bundler when it is newer than this one and not installed:
      # this Ruby's Bundler may misread its lock. nil otherwise.
      def missing_newer(app)
        version = locked_version(app)
        running = running_version
        return nil unless version && running && installed(version, app).nil?
        return nil unless Gem::Version.correct?(version) && Gem::Version.new(version) > Gem::Version.new(running)

        version
      end

      def gem_dirs
        (Gem.default_path + [Gem.user_dir]).uniq
      end
    end
  end
end
