# frozen_string_literal: true

require "yaml"
require "rbconfig"

module Rackbench
  module Workload
    # Where a user's bundle installs its gems when its Bundler settings name
    # a path (`bundle config set --local path vendor/bundle`, or deployment
    # mode): the gem directory PATH/ruby/3.1.0 that Bundler itself reads
    # (Bundler::Settings#path: PATH/RUBY_ENGINE/ruby ABI version, a relative
    # PATH taken from the app's root). nil when the bundle uses the system's
    # gem directories.
    #
    # The settings read are the ones a child in the app's clean environment
    # sees (App#bundle_env unsets every BUNDLE_* variable): the app's own
    # .bundle/config first, then the user's ~/.bundle/config, as Bundler
    # orders them. Bundler installs more than the app's gems there: the
    # Bundler version its Gemfile.lock names, when `bundle install` switched
    # to it (Bundler::SelfManager), lands in that directory too.
    module BundlePath
      DEPLOYMENT = "vendor/bundle" # Bundler's path in deployment mode

      module_function

      # The gem directory of app's BUNDLE_PATH, or nil.
      def gem_dir(app, home: user_home)
        path = setting(app, home)
        path && File.join(File.expand_path(path, app.root), RUBY_ENGINE, RbConfig::CONFIG["ruby_version"])
      end

      # BUNDLE_PATH as the settings name it (or deployment's), else nil.
      def setting(app, home)
        files = [File.join(app.root, ".bundle", "config"), home && File.join(home, ".bundle", "config")].compact
        files.each do |file|
          config = read(file)
          return config["BUNDLE_PATH"] if config["BUNDLE_PATH"]
          return DEPLOYMENT if config["BUNDLE_DEPLOYMENT"].to_s == "true"
        end
        nil
      end

      def user_home
        Dir.home
      rescue ArgumentError # no HOME
        nil
      end

      def read(file)
        return {} unless File.file?(file)

        config = YAML.safe_load(File.read(file))
        config.is_a?(Hash) ? config.transform_values(&:to_s) : {}
      rescue SystemCallError, Psych::Exception
        {}
      end
    end
  end
end
