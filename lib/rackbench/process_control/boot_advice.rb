# frozen_string_literal: true

module Rackbench
  module ProcessControl
    # What to do about an app that failed to boot, chosen from the error
    # ErrorLine quoted: advice only where it fits the failure.
    #
    # Bundler's and RubyGems' errors are about the app's Gemfile and lock,
    # not its code: "make it boot with its own setup first" would send the
    # user to the wrong place. Most say their own fix in the quote ("You have
    # already activated stringio 3.0.1.2, but your Gemfile requires stringio
    # 3.2.0. Since stringio is a default gem, you can either remove your
    # dependency on it or try updating to a newer version of bundler ...");
    # Bundler's "Could not find ... in any of the sources" does not (its
    # "Run `bundle install`" is on another line, or absent under bundler/setup).
    module BootAdvice
      GEM_ERROR = Regexp.union(
        /\((Gem::\w*Error|Bundler::(GemNotFound|VersionConflict|SolveFailure|GemfileNotFound|GemfileError|LockfileError))\)\z/,
        /\A(You have already activated |Your (Ruby|bundle) |Could not find )/
      ).freeze
      MISSING_GEMS = /\ACould not find .* in (any of the sources|locally installed gems)|\(Bundler::GemNotFound\)\z/.freeze
      APP = "make it boot with its own setup first"

      module_function

      # For an app that did not start in the server's workers (it loaded,
      # and raised): the app's own setup, unless the bundle is at fault.
      def app_load(line, root:)
        gem_error?(line) ? bundle(line, root: root) : APP
      end

      # For the app's bundle: nil when Bundler's own words name the fix.
      def bundle(line, root:)
        "run `bundle install` in #{root}" if line.match?(MISSING_GEMS)
      end

      def gem_error?(line)
        line.match?(GEM_ERROR)
      end
    end
  end
end
