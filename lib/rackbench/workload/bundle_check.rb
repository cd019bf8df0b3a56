# frozen_string_literal: true

require "rbconfig"
require_relative "../error"
require_relative "app_bundler"

module Rackbench
  module Workload
    # Before any server boots, a user's bundle that cannot load is one line
    # (exit 2) instead of the same boot failure once per setup:
    #
    # - a Gemfile without a Gemfile.lock: the app's own setup (`bundle
    #   install`) never ran;
    # - a Gemfile.lock that names gems not installed here (a lock from
    #   another machine, or years old): `bundle check --dry-run` lists them.
    #
    # Method: Bundler itself decides, run as the servers are run (the
    # Bundler the app's lock names when installed, else this Ruby's:
    # AppBundler; the app's directory, its clean environment: App#bundle_env),
    # so the app's .bundle/config (e.g. `path vendor/bundle`), platforms and
    # git or path gems count as they will at boot. --dry-run: Bundler does
    # not rewrite the app's Gemfile.lock. Nothing is fetched (check never
    # uses the network).
    # Cost: one Ruby process loading Bundler and resolving the lock locally,
    # measured 0.38-0.45 s for the built-in Rails workload (81 gems) on the
    # 2-core CI machine; paid once per run, before the first boot.
    module BundleCheck
      SHOWN = 3 # missing gems named in the line; the rest are counted

      module_function

      # The one-line problem, or nil when the bundle is installed (or the app has none).
      def problem(app, env: ENV)
        return nil unless app.bundled?
        return unlocked(app) unless app.locked?

        out, ok = check(app, env)
        return nil if ok

        missing = out.scan(/^\s*\* (\S+) \(([^)]+)\)/).map { |name, version| "#{name} #{version}" }
        newer = AppBundler.missing_newer(app)
        return other_bundler(newer, missing) if newer && missing.any?
        return stale(app, missing) if missing.any?

        said = out.lines.map(&:strip).find { |l| !l.empty? && !l.start_with?("Install missing gems") } || "no output"
        # Bundler's own advice decides ours: a Ruby version or a Gemfile
        # that does not parse needs a fix, not `bundle install`.
        fix = out.include?("bundle install") ? install_in(app) : "fix it, then check with `bundle check` there"
        "your app's bundle cannot load here (`bundle check` in #{app.root} says: #{said.sub(/\A\[!\]\s*/, '')}): #{fix}"
      end

      # Only the cheap part (no process): the Gemfile has no lock yet.
      def unlocked_problem(app)
        app.bundled? && !app.locked? ? unlocked(app) : nil
      end

      def unlocked(app)
        "your app's Gemfile has no Gemfile.lock yet: run `bundle install` in #{app.root} (the app's own setup) first"
      end

      def stale(app, missing)
        "your app's Gemfile.lock names gems that are not installed (#{named(missing)}): #{install_in(app)}"
      end

      # Where the user runs `bundle install`: the app's directory; for
      # rackbench's worktree of a commit (removed when the run ends), a
      # checkout of that commit in the user's own app directory.
      def install_in(app)
        checkout = app.respond_to?(:checkout) && app.checkout
        return "run `bundle install` in #{app.root}" unless checkout

        "install them as for any checkout of #{checkout.short} (`git checkout #{checkout.short} && bundle install` in " \
          "#{checkout.root}, then back: rackbench's worktree of it is removed when the run ends)"
      end

      # The lock was written by a newer Bundler that is not installed here:
      # `bundle install` with this one would not end the loop of advice.
      def other_bundler(version, missing)
        "your app's Gemfile.lock was written by Bundler #{version}, which is not installed here, and Bundler " \
          "#{AppBundler.running_version} finds gems not installed (#{named(missing)}): run `gem install bundler:#{version}`, " \
          "then run rackbench again"
      end

      def named(missing)
        more = missing.size > SHOWN ? " and #{missing.size - SHOWN} more" : ""
        "#{missing.first(SHOWN).join(', ')}#{more}"
      end

      # [output, success?]
      def check(app, env)
        argv = [RbConfig.ruby, AppBundler.bundle(app), "check", "--dry-run"]
        out = IO.popen(app.bundle_env(env), argv, chdir: app.root, err: %i[child out], &:read)
        [out.to_s, Process.last_status.success?]
      rescue SystemCallError => e
        ["#{argv.first}: #{Error.reason(e)}", false]
      end
    end
  end
end
