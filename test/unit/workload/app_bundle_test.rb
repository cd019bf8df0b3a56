# frozen_string_literal: true

require "test_helper"
require "rackbench/server"
require "rackbench/workload/app"

# A user's app whose bundle is not installed says what to do.
class AppBundleTest < Minitest::Test
  def app_with(gemfile, lock: nil)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    File.write(File.join(dir, "Gemfile"), gemfile)
    File.write(File.join(dir, "Gemfile.lock"), lock) if lock
    dir
  end

  def test_a_gemfile_without_a_lock_file_asks_for_the_apps_own_setup
    dir = app_with(%(source "https://example.invalid"\ngem "puma", "~> 4.3"\n))
    %w[run capacity].each do |command|
      out = File.join(tmpdir, "run")
      status, _out, err = run_cli(command, "--app", dir, "-s", "puma x1:1", "-e", "/", "-o", out)
      assert_equal 2, status, command
      assert_equal "Error: your app's Gemfile has no Gemfile.lock yet: run `bundle install` in #{dir} (the app's own setup) first\n", err
      refute File.exist?(out), "#{command}: nothing started, no run directory"
    end
  end

  def test_a_lock_file_without_the_named_server_asks_for_bundle_install
    dir = app_with(%(gem 'puma'\n), lock: "GEM\n  specs:\n    rack (2.2.8)\n")
    hint = Rackbench::Server.adapter("puma", app: Rackbench::Workload::App.resolve(dir)).install_hint
    assert_equal "its Gemfile names puma but Gemfile.lock lacks it: run `bundle install` in #{dir}", hint
    unicorn = Rackbench::Server.adapter("unicorn", app: Rackbench::Workload::App.resolve(dir)).install_hint
    assert_equal "add `gem \"unicorn\", \"6.1.0\"` to #{File.join(dir, 'Gemfile')}, then run `bundle install` in #{dir}", unicorn
  end

  # Every requested server the bundle lacks, in one line, exit 2, before
  # anything starts (the servers are checked before the bundle itself).
  def test_every_missing_server_is_named_at_once_with_its_pinned_line
    dir = app_with(%(gem "rack"\ngem "thin"\n), lock: "GEM\n  specs:\n    rack (2.2.8)\n")
    out = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--app", dir, "-s", "puma x1:1", "-s", "falcon x1", "-s", "thin", "-s", "puma x2:1",
                                "-e", "/", "-o", out)
    assert_equal 2, status
    assert_equal "Error: not in your app's bundle: puma, falcon, thin — add `gem \"puma\", \"8.0.2\"`, " \
                 "`gem \"falcon\", \"0.51.1\"` and `gem \"json\", \"2.6.3\"` (falcon's dependencies would otherwise " \
                 "pull json 3, which breaks Rails) to #{dir}/Gemfile (it names thin already, but Gemfile.lock lacks it), " \
                 "then run `bundle install` in #{dir}\n", err
    refute File.exist?(out)
    status, _out, err = run_cli("tune", "--app", dir, "--servers", "unicorn,puma", "--memory-budget", "1GiB", "--slo-p99", "1s",
                                "-o", out)
    assert_equal 2, status
    assert_match(/\AError: not in your app's bundle: unicorn, puma — add `gem "unicorn", "6.1.0"` and `gem "puma", "8.0.2"` to /, err)
  end

  # Default servers the bundle lacks are left out with the same line, never
  # in silence; none left at all is refused.
  def test_default_servers_the_bundle_lacks_are_named_and_left_out
    require "rackbench/plan/server_check"
    check = Rackbench::ServerCheck
    app = Rackbench::Workload::App.resolve(app_with(%(gem "puma"\n), lock: "GEM\n  specs:\n    puma (8.0.2)\n"))
    kept, warning = check.defaults(%w[puma unicorn thin], app)
    assert_equal %w[puma], kept
    assert_equal "left out of this run: not in your app's bundle: unicorn, thin — add `gem \"unicorn\", \"6.1.0\"` and " \
                 "`gem \"thin\", \"2.0.1\"` to #{app.gemfile}, then run `bundle install` in #{app.root}", warning
    assert_equal [%w[puma], nil], check.defaults(%w[puma], app)
    e = assert_raises(Rackbench::UsageError) { check.defaults(%w[unicorn thin], app) }
    assert_match(/\Ano server of the default plan can run: not in your app's bundle: unicorn, thin — add /, e.message)
  end

  # On the built-in app (rackbench's own bundle), a default server whose gem
  # is gone (Falcon, Pitchfork) is left out with rackbench's own remedy.
  def test_default_servers_missing_here_are_named_with_bin_setup
    require "minitest/mock"
    require "rackbench/plan/server_check"
    find = Gem::Specification.method(:find_by_name)
    gone = lambda do |name, *rest|
      raise Gem::MissingSpecError.new(name, nil) if %w[falcon pitchfork].include?(name)

      find.call(name, *rest)
    end
    kept, warning = Gem::Specification.stub(:find_by_name, gone) do
      Rackbench::ServerCheck.defaults(%w[puma falcon pitchfork], Rackbench::Workload::App.arena)
    end
    assert_equal %w[puma], kept
    assert_equal "left out of this run: falcon is not installed here: run bin/setup (rackbench's Gemfile lists falcon); " \
                 "pitchfork is not installed here: run bin/setup (rackbench's Gemfile lists pitchfork)", warning
  end

  # A run with no --setup: the default plan's servers the bundle has (and
  # Passenger, Debian's, when installed), the others named in the warning:
  # Falcon and Pitchfork too, with Falcon's json companion.
  def test_the_default_plan_keeps_what_the_bundle_has
    dir = app_with(%(gem "puma"\n), lock: "GEM\n  specs:\n    puma (8.0.2)\n")
    world = Rackbench::Config::Settle::World.new
    planned = Rackbench::Config.build({ app: dir }, world: world) # settled in the build (Config::Settle::Servers)
    passenger = Rackbench::Server.adapter("passenger").available?
    assert_equal ["puma"] + (passenger ? ["passenger"] : []), planned[:setups].map(&:server)
    assert_equal 1, world.said.size, world.said.inspect
    kind, warning = world.said.first
    assert_equal :warning, kind
    assert_equal "left out of this run: not in your app's bundle: unicorn, thin, falcon, pitchfork — add " \
                 "`gem \"unicorn\", \"6.1.0\"`, `gem \"thin\", \"2.0.1\"`, `gem \"falcon\", \"0.51.1\"`, " \
                 "`gem \"pitchfork\", \"0.18.2\"` and `gem \"json\", \"2.6.3\"` (falcon's dependencies would otherwise " \
                 "pull json 3, which breaks Rails) to #{File.join(dir, 'Gemfile')}, then run `bundle install` in #{dir}", warning
  end
end
