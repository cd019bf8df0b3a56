# frozen_string_literal: true

require "test_helper"
require "minitest/mock"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/workload/app"
require "rackbench/workload/app_bundler"
require "rackbench/workload/bundle_check"

# A user's bundle is checked and booted by the Bundler its Gemfile.lock
# names (issue 46, item 9.1): Debian's Bundler 2.3.15 refused a bundle that
# Bundler 2.4.2 had installed, and its advice (`bundle install`) looped.
class AppBundlerTest < Minitest::Test
  Bundler = Rackbench::Workload::AppBundler

  # A lock naming a gem installed nowhere: this Ruby's Bundler says it is
  # missing; the fake locked Bundler says all is well.
  LOCK = <<~LOCK
    GEM
      remote: https://rubygems.org/
      specs:
        rack (9.9.9)

    PLATFORMS
      x86_64-linux

    DEPENDENCIES
      rack

    BUNDLED WITH
       %<version>s
  LOCK

  def app_locked(version)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    File.write(File.join(dir, "Gemfile"), %(gem "rack"\n))
    File.write(File.join(dir, "Gemfile.lock"), format(LOCK, version: version))
    Rackbench::Workload::App.resolve(dir)
  end

  # A gem directory holding a fake Bundler `version` whose `bundle` records
  # its arguments in a file and succeeds.
  def fake_bundler(version, home = tmpdir)
    spec = Gem::Specification.new do |s|
      s.name = "bundler"
      s.version = version
      s.summary = "fake"
      s.authors = ["test"]
      s.bindir = "exe"
      s.executables = ["bundle"]
    end
    FileUtils.mkdir_p(File.join(home, "specifications"))
    File.write(File.join(home, "specifications", "bundler-#{version}.gemspec"), spec.to_ruby)
    exe = File.join(home, "gems", "bundler-#{version}", "exe")
    FileUtils.mkdir_p(exe)
    File.write(File.join(exe, "bundle"), "File.write(#{File.join(home, 'ran').inspect}, ARGV.join(' '))\n")
    home
  end

  def test_the_lock_version_is_read_from_bundled_with
    assert_equal "2.4.2", Bundler.parse(format(LOCK, version: "2.4.2"))
    assert_equal "2.5.0.dev", Bundler.parse("DEPENDENCIES\n  rack\n\nBUNDLED WITH\n   2.5.0.dev\n")
    assert_equal "2.4.2", Bundler.parse("DEPENDENCIES\r\n  rack\r\n\r\nBUNDLED WITH\r\n   2.4.2\r\n")
    assert_nil Bundler.parse("GEM\n  specs:\n    rack (2.2.8)\n")
    assert_nil Bundler.locked_version(Rackbench::Workload::App.arena)
  end

  def test_the_check_runs_the_bundler_the_lock_names_when_installed
    app = app_locked("9.9.9")
    home = fake_bundler("9.9.9")
    problem = Bundler.stub(:gem_dirs, [tmpdir, home]) { Rackbench::Workload::BundleCheck.problem(app) }
    assert_nil problem, "the lock's Bundler (the fake) says the bundle is installed"
    assert_equal "check --dry-run", File.read(File.join(home, "ran"))
  end

  # `bundle install` with `path vendor/bundle` puts the lock's Bundler in
  # the app's own BUNDLE_PATH (Bundler::SelfManager, as it did for
  # ruby-grape/grape-on-rack's BUNDLED WITH 2.4.2): found there, not
  # "not installed here, run gem install bundler".
  def test_the_locked_bundler_in_the_apps_bundle_path_is_run
    app = app_locked("9.9.9")
    FileUtils.mkdir_p(File.join(app.root, ".bundle"))
    File.write(File.join(app.root, ".bundle", "config"), %(---\nBUNDLE_PATH: "vendor/bundle"\n))
    scope = File.join(app.root, "vendor", "bundle", RUBY_ENGINE, RbConfig::CONFIG["ruby_version"])
    fake_bundler("9.9.9", scope)
    problem = Bundler.stub(:gem_dirs, [tmpdir]) { Rackbench::Workload::BundleCheck.problem(app) }
    assert_nil problem, "the lock's Bundler, in vendor/bundle, says the bundle is installed"
    assert_equal "check --dry-run", File.read(File.join(scope, "ran"))
  end

  # The same from a worktree's copied config (GitRefs: BUNDLE_PATH made
  # absolute), and from the user's ~/.bundle/config.
  def test_the_bundle_path_is_read_absolute_and_from_the_users_config
    app = app_locked("9.9.9")
    scope = File.join(RUBY_ENGINE, RbConfig::CONFIG["ruby_version"])
    FileUtils.mkdir_p(File.join(app.root, ".bundle"))
    File.write(File.join(app.root, ".bundle", "config"), %(---\nBUNDLE_PATH: "/gems/here"\n))
    assert_equal File.join("/gems/here", scope), Rackbench::Workload::BundlePath.gem_dir(app, home: tmpdir)
    File.delete(File.join(app.root, ".bundle", "config"))
    home = tmpdir
    FileUtils.mkdir_p(File.join(home, ".bundle"))
    File.write(File.join(home, ".bundle", "config"), %(---\nBUNDLE_DEPLOYMENT: "true"\n))
    assert_equal File.join(app.root, "vendor/bundle", scope), Rackbench::Workload::BundlePath.gem_dir(app, home: home)
    assert_nil Rackbench::Workload::BundlePath.gem_dir(app, home: tmpdir), "no path: the system's gems"
  end

  def test_servers_boot_with_the_bundler_the_lock_names
    app = app_locked("9.9.9")
    home = fake_bundler("9.9.9")
    argv = Bundler.stub(:gem_dirs, [home]) do
      Rackbench::Server.adapter("puma", app: app).argv(Rackbench::Setup.parse("puma x1:1"), app: app.config_ru, port: 9, dir: tmpdir)
    end
    assert_equal [RbConfig.ruby, File.join(home, "gems", "bundler-9.9.9", "exe", "bundle"), "exec", "puma"], argv.first(4)
    argv = Bundler.stub(:gem_dirs, [tmpdir]) do
      Rackbench::Server.adapter("puma", app: app).argv(Rackbench::Setup.parse("puma x1:1"), app: app.config_ru, port: 9, dir: tmpdir)
    end
    assert_equal Gem.bin_path("bundler", "bundle"), argv[1], "not installed: this Ruby's Bundler"
  end

  # Not installed, and newer than this Ruby's Bundler: the line names the
  # lock's version and how to install it, not `bundle install` again.
  def test_a_newer_locked_bundler_not_installed_is_named_with_its_install_line
    app = app_locked("99.0.0")
    problem = Bundler.stub(:gem_dirs, [tmpdir]) { Rackbench::Workload::BundleCheck.problem(app) }
    assert_equal "your app's Gemfile.lock was written by Bundler 99.0.0, which is not installed here, and Bundler " \
                 "#{Bundler.running_version} finds gems not installed (rack 9.9.9): run `gem install bundler:99.0.0`, " \
                 "then run rackbench again", problem
  end

  # An older lock (or this Bundler's own) keeps the usual advice.
  def test_an_older_lock_keeps_bundle_install
    app = app_locked("1.17.3")
    problem = Bundler.stub(:gem_dirs, [tmpdir]) { Rackbench::Workload::BundleCheck.problem(app) }
    assert_equal "your app's Gemfile.lock names gems that are not installed (rack 9.9.9): run `bundle install` in #{app.root}", problem
  end
end
