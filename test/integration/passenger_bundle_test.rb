# frozen_string_literal: true

require "test_helper"
require "json"
require "bundler"
require "fileutils"
require_relative "../support/fixture_bundle"
require "rackbench/server"
require "rackbench/plan/setup"
require "rackbench/ports"
require "rackbench/workload/app"

# Passenger in an app's own bundle. Its loader activates the default gem
# stringio (3.0.1.2 on Debian's Ruby 3.1) before Bundler, which then refused
# Rails 7.2's lock (stringio 3.2.0); the --ruby wrapper runs bundler/setup
# first (Server::Passenger#bundled_ruby).
class PassengerBundleTest < Minitest::Test
  include Rackbench::FixtureBundle
  App = Rackbench::Workload::App

  def setup
    require_tool!("passenger", Rackbench::Server.adapter("passenger").available?)
  end

  def boot(app, label, ready_path: "/")
    Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("passenger", app: app),
                                                  setup: Rackbench::Setup.parse(label), app: app.config_ru,
                                                  port: Rackbench::Ports.free, dir: tmpdir, env: app.env,
                                                  ready_path: ready_path).start
  end

  def get(instance, path)
    Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, path, timeout: 10)
  end

  # Each worker runs on the lock's stringio: its 3.2.0 shared object from
  # the app's vendor/bundle is mapped in the process, not Ruby's 3.0.1.2.
  def test_the_built_in_rails_app_boots_on_its_locked_default_gems
    instance = boot(App.resolve("rails"), "passenger x1", ready_path: "/health")
    res = get(instance, "/hello")
    assert_equal 200, res.status
    assert_equal "Hello, world!", res.body.strip
    workers = instance.workers
    assert_equal 1, workers.size
    maps = File.read("/proc/#{workers.first.pid}/maps")
    assert_includes maps, File.join(App::RAILS_APP, "vendor", "bundle"), "the worker runs on the Rails app's own bundle"
    assert_match(%r{/stringio-3\.2\.0/\S*stringio\.so$}, maps, "stringio from the lock")
    wrapper = instance.argv[instance.argv.index("--ruby") + 1]
    assert File.executable?(wrapper), "the --ruby wrapper is executable: #{wrapper}"
    assert_includes File.read(wrapper), "-rbundler/setup"
  ensure
    instance&.stop
  end

  # The issue's command: before the fix it failed with "You have already
  # activated stringio 3.0.1.2, but your Gemfile requires stringio 3.2.0".
  def test_a_run_of_passenger_on_the_rails_app_measures
    out = File.join(tmpdir, "run")
    status, _stdout, err = run_cli("run", "--app", "rails", "-s", "passenger x2", "-e", "/hello", "-c", "1", "-d", "1",
                                   "--warmup", "0", "--cooldown", "0", "-o", out)
    assert_equal 0, status, err
    trial = JSON.parse(File.readlines(File.join(out, "trials.jsonl")).first)
    assert_equal "passenger x2", trial["setup"]
    assert_operator trial["requests"], :>, 0
    assert_equal 0, trial["error_total"], trial["errors"].inspect
  end

  # A bundled Rack app (no Rails) sees its own bundle and nothing else, as
  # under `bundle exec`; the built-in arena (no Gemfile) keeps Ruby itself
  # as --ruby (the server contract test boots it).
  def test_a_bundled_rack_app_sees_only_its_bundle
    dir = File.join(tmpdir, "myapp")
    FileUtils.cp_r(File.expand_path("../fixtures/apps/bundled", __dir__), dir)
    install_fixture_bundle(dir)
    instance = boot(App.resolve(dir), "passenger x1")
    seen = JSON.parse(get(instance, "/").body)
    assert_equal File.join(dir, "Gemfile"), seen["gemfile"]
    assert_includes seen["gems"], "puma", "a gem of its bundle is loadable"
    refute_includes seen["gems"], "thin", "only the app's gems are loadable"
    assert_equal RbConfig.ruby, Rackbench::Server.adapter("passenger", app: App.arena)
                                                 .argv(Rackbench::Setup.parse("passenger x1"), app: "/a/config.ru", port: 1, dir: "/d")
                                                 .then { |a| a[a.index("--ruby") + 1] }
  ensure
    instance&.stop
  end
end
