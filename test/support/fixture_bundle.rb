# frozen_string_literal: true

require "bundler"

module Rackbench
  # A test's copy of a fixture app with a Gemfile (test/fixtures/apps/bundled,
  # rack2), installed offline (`bundle install --local`) from the gems
  # rackbench's own bundle already holds: bin/setup installs that bundle
  # under the checkout (vendor/bundle), apart from the system gems, so the
  # copy's Bundler path is pointed there (nothing is installed as long as
  # every gem it resolves to is already in it; bin/setup adds the Rack 2 the
  # rack2 fixture needs). A bundle installed the old way, into the system
  # gems, has no path: the copy then resolves from the system gems as before.
  module FixtureBundle
    # rackbench's own bundle path (absolute), or nil when it uses the system gems.
    def self.path
      configured = Bundler.settings[:path] or return nil
      File.expand_path(configured, Bundler.root)
    end

    # Installs the app in dir offline; asserts success (message: why it may fail).
    def install_fixture_bundle(dir, message = "bundle install --local failed for the fixture app (its gems come with rackbench's bundle)")
      Bundler.with_unbundled_env do
        path = FixtureBundle.path
        if path
          assert system("bundle", "config", "set", "--local", "path", path, chdir: dir, out: File::NULL, err: File::NULL),
                 "bundle config set path failed in #{dir}"
        end
        assert system("bundle", "install", "--local", "--quiet", chdir: dir, out: File::NULL, err: File::NULL), message
      end
    end
  end
end
