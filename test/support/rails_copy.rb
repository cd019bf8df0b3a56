# frozen_string_literal: true

require "bundler"
require "fileutils"
require "rackbench/workload/app"

module Rackbench
  # A copy of the built-in Rails workload (apps/rails) that a test may change
  # as a user changes their app: its Gemfile, lock and config. The copy runs
  # offline on the gems bin/setup installed: no vendor/bundle or .bundle of
  # its own, its Bundler path pointed at the workload's (nothing is installed
  # there as long as every gem it resolves to is already in it). apps/arena
  # is copied beside it: config/application.rb loads ../../arena's files.
  module RailsCopy
    APPS = Workload::APPS_DIR
    INSTALLED = File.join(APPS, "rails", "vendor", "bundle") # bin/setup's install of the workload's gems

    def rails_copy
      skip "the Rails workload's bundle is not installed (bin/setup)" unless File.directory?(INSTALLED)
      root = tmpdir
      app = File.join(root, "rails")
      FileUtils.mkdir_p(app)
      Dir.children(File.join(APPS, "rails")).reject { |f| %w[vendor .bundle].include?(f) }
         .each { |f| FileUtils.cp_r(File.join(APPS, "rails", f), app) }
      FileUtils.cp_r(File.join(APPS, "arena"), root)
      bundle(app, "config", "set", "--local", "path", INSTALLED)
      app
    end

    # `bundle ARGS` in dir, outside the test's own bundle; asserts success.
    def bundle(dir, *args)
      Bundler.with_unbundled_env do
        assert system("bundle", *args, chdir: dir, out: File::NULL, err: File::NULL), "bundle #{args.join(' ')} failed in #{dir}"
      end
    end

    # Drops the Gemfile's `gem "NAME"` lines for names (then re-lock with
    # `bundle install --local`).
    def drop_gems(app, names)
      gemfile = File.join(app, "Gemfile")
      File.write(gemfile, File.readlines(gemfile).reject { |l| l.match?(/\Agem "(#{names.join('|')})"/) }.join)
    end
  end
end
