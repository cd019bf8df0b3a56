# frozen_string_literal: true

require_relative "app"

module Rackbench
  module Workload
    # run --profile in a user's app (--app, each --ref's commit): its server
    # processes load stackprof from the app's own bundle (the in-server
    # profile requires it after the app's Bundler setup), so the app's
    # Gemfile.lock must hold it. Read from the lock, no process: a bundle
    # whose lock names stackprof but has not installed it is refused by
    # BundleCheck as any missing gem is. The built-in arena runs in
    # rackbench's own bundle, which pins stackprof; an app without a Gemfile
    # runs on the gems Ruby finds, checked the same way here.
    module ProfileCheck
      GEM = "stackprof"
      VERSION = "0.2.28" # rackbench's own pin (Gemfile)

      module_function

      # The one-line problem, or nil when stackprof can load in app's servers.
      def problem(app)
        return nil if app.arena?
        return unbundled unless app.bundled?
        return nil if app.locked_version(GEM)

        "--profile: stackprof is not in your app's bundle (#{app.gemfile}.lock): add `gem \"#{GEM}\", \"#{VERSION}\"` " \
          "to #{app.gemfile} and run `bundle install` in #{app.root}, or drop --profile"
      end

      def unbundled
        Gem::Specification.find_by_name(GEM)
        nil
      rescue Gem::MissingSpecError
        "--profile: stackprof is not installed for this Ruby (your app has no Gemfile): `gem install #{GEM} -v #{VERSION}`, " \
          "or drop --profile"
      end
    end
  end
end
