# frozen_string_literal: true

require "rbconfig"
require_relative "../clock"
require_relative "../process_control/command"
require_relative "app_bundler"
require_relative "bundle_check"

module Rackbench
  module Workload
    # A commit whose Gemfile.lock names gems not installed (run --ref, a
    # bisection's step: an older or newer lock than the checkout's) gets
    # them from this machine before it is refused (issue 44, item 2):
    # `bundle install --local`, which installs only from gems already here
    # (the app's vendor/cache, Bundler's and RubyGems' caches) and never
    # reaches the network. Run as BundleCheck runs Bundler (the Bundler the
    # lock names, the app's clean environment), in the commit's own
    # worktree, whose .bundle/config names the user's BUNDLE_PATH
    # (GitRefs#bundle_config): the gems go where the user's `bundle
    # install` puts them, beside the ones there (nothing is removed: no
    # `bundle clean`). Only after BundleCheck found gems missing; a lock
    # Bundler cannot read, or a Ruby it refuses, is not retried.
    # Limits: a gem with a C extension is compiled here (minutes for
    # nokogiri from source), within TIMEOUT; a gem found nowhere on the
    # machine stays missing and the commit is refused (or skipped by a
    # bisection) with Bundler's words, naming --fetch-gems.
    #
    # With fetch (run --fetch-gems, the user's leave to use the network),
    # what --local could not install is then installed by a plain `bundle
    # install` from the Gemfile's own sources, into the same BUNDLE_PATH.
    # Its limits: a BUNDLE_PATH-less bundle installs into the system's gem
    # directory, which may not be writable (Bundler cannot ask for sudo
    # here: its input is closed); credentials for a private source are the
    # user's Bundler configuration's.
    module BundleInstall
      TIMEOUT = 900.0 # seconds for one install (compiling extensions)
      LOCAL = "bundle install --local"
      FETCH = "bundle install"

      # source/command: where the gems came from and how (for the note).
      Result = Struct.new(:installed, :problem, :seconds, :source, :command, keyword_init: true)

      module_function

      # The app's bundle made whole from this machine's gems where it can be
      # (and then, with fetch, from the Gemfile's sources): a Result
      # (installed: true when it was installed and now checks; problem: the
      # line that refuses it still, or nil).
      def local(app, env: ENV, timeout: TIMEOUT, fetch: false)
        problem = BundleCheck.problem(app, env: env)
        return Result.new(installed: false, problem: nil, seconds: 0.0) unless problem
        return Result.new(installed: false, problem: problem, seconds: 0.0) unless missing_gems?(problem)

        started = Clock.now
        out = install(app, env, timeout, "--local")
        again = BundleCheck.problem(app, env: env)
        return done(started, "this machine's gems", LOCAL) unless again

        why = "`#{LOCAL}` could not install them from the gems on this machine: #{said(out.output)}"
        return fetched(app, env, timeout, started, why) if fetch

        Result.new(installed: false, seconds: Clock.now - started,
                   problem: "#{again} (#{why}); or give --fetch-gems to let rackbench run `#{FETCH}` from the Gemfile's " \
                            "sources (the network)")
      end

      # --fetch-gems: `bundle install` from the Gemfile's sources.
      def fetched(app, env, timeout, started, why)
        out = install(app, env, timeout)
        again = BundleCheck.problem(app, env: env)
        return done(started, "the Gemfile's sources", "#{LOCAL}, then #{FETCH}") unless again

        Result.new(installed: false, problem: "#{again} (#{why}; `#{FETCH}` (--fetch-gems) could not either: " \
                                              "#{said(out.output)})", seconds: Clock.now - started)
      end

      def install(app, env, timeout, *flags)
        ProcessControl::Command.run([RbConfig.ruby, AppBundler.bundle(app), "install", *flags],
                                    chdir: app.root, timeout: timeout, env: app.bundle_env(env))
      end

      def done(started, source, command)
        Result.new(installed: true, problem: nil, seconds: Clock.now - started, source: source, command: command)
      end

      def missing_gems?(problem) = problem.include?("gems that are not installed") || problem.include?("finds gems not installed")

      SAID = 300 # characters of Bundler's reason kept

      # Bundler's last sentence, which says why, on one line, shortened.
      # Bundler wraps it at 80 columns ("Could not find nokogiri-1.15.4,
      # ...\n...in cached gems or\ninstalled locally"), right after its
      # "Using ..." lines: the last line and the ones it continues (each
      # line that starts in lower case or with a digit continues the one
      # before it).
      def said(output)
        lines = output.lines.map(&:strip)
        lines.pop while lines.last&.empty?
        return "no output" if lines.empty?

        sentence = [lines.pop]
        sentence.unshift(lines.pop) while sentence.first.match?(/\A[[:lower:][:digit:]]/) && !lines.last.to_s.empty?
        line = sentence.join(" ")
        line.size > SAID ? "#{line[0, SAID - 3]}..." : line
      end
    end
  end
end
