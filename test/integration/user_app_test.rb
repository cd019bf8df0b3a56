# frozen_string_literal: true

require "test_helper"
require "json"
require "bundler"
require "fileutils"
require_relative "../support/fixture_bundle"

# --app PATH: the user's own config.ru, run inside its own bundle.
class UserAppTest < Minitest::Test
  include Rackbench::FixtureBundle
  FIXTURE = File.expand_path("../fixtures/apps/bundled", __dir__)

  def bundled_app
    dir = File.join(tmpdir, "myapp")
    FileUtils.cp_r(FIXTURE, dir)
    install_fixture_bundle(dir)
    dir
  end

  def test_runs_the_users_app_in_its_own_clean_bundle
    app = bundled_app
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "--app", app, "-s", "puma x1:2", "-s", "unicorn x2", "-e", "/", "-c", "2",
                                  "-d", "1", "--warmup", "0", "-o", out)
    assert_equal 0, status, err
    trials = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal ["puma x1:2", "unicorn x2"], trials.map { |t| t["setup"] }.sort, "each setup once (in the round's random order)"
    trials.each { |t| assert_operator t["requests"], :>, 0 }
    setups = File.readlines(File.join(out, "setups.jsonl")).map { |l| JSON.parse(l) }
    setups.each do |s|
      assert_equal File.join(app, "Gemfile"), s.dig("env", "BUNDLE_GEMFILE")
      assert_includes s["argv"], "exec", "started with bundle exec"
    end
    assert_match(/puma x1:2/, stdout)
  end

  def test_what_the_app_sees_is_its_own_bundle_and_production
    app = bundled_app
    require "rackbench/server"
    require "rackbench/plan/setup"
    require "rackbench/ports"
    require "rackbench/workload/app"
    user = Rackbench::Workload::App.resolve(app)
    setup = Rackbench::Setup.parse("puma x1:1")
    instance = Rackbench::ProcessControl::ServerInstance.new(adapter: Rackbench::Server.adapter("puma", app: user), setup: setup,
                                               app: user.config_ru, port: Rackbench::Ports.free, dir: tmpdir,
                                               env: user.env).start
    seen = JSON.parse(Rackbench::ProcessControl::HttpProbe.get("127.0.0.1", instance.port, "/").body)
    assert_equal File.join(app, "Gemfile"), seen["gemfile"]
    refute_match(/rackbench/, seen["rubyopt"].to_s, "rackbench's RUBYOPT does not leak in")
    assert_equal "production", seen["rack_env"]
    assert seen["secret_set"], "a SECRET_KEY_BASE is generated"
    refute_includes seen["gems"], "thin", "only the app's gems are loadable"
  ensure
    instance&.stop
  end

  def test_a_server_the_bundle_lacks_names_the_gemfile_line
    app = bundled_app
    status, _out, err = run_cli("run", "--app", app, "-s", "thin", "-e", "/", "-o", File.join(tmpdir, "run"))
    assert_equal 2, status
    assert_equal "Error: not in your app's bundle: thin — add `gem \"thin\", \"2.0.1\"` to #{app}/Gemfile, " \
                 "then run `bundle install` in #{app}\n", err
  end

  # A lock naming gems that are not installed (an old one, another
  # machine's): one line before anything boots, not one boot failure per
  # setup. Bundler itself is asked (Workload::BundleCheck).
  def test_a_stale_lock_file_is_one_line_before_any_boot
    app = File.join(tmpdir, "stale")
    FileUtils.mkdir_p(app)
    source = Gem.sources.first.uri.to_s
    File.write(File.join(app, "config.ru"), "run ->(_) { [200, {}, ['ok']] }\n")
    File.write(File.join(app, "Gemfile"), %(source "#{source}"\ngem "rack", "1.5.2"\ngem "puma", "3.12.6"\n))
    File.write(File.join(app, "Gemfile.lock"), <<~LOCK)
      GEM
        remote: #{source}
        specs:
          puma (3.12.6)
          rack (1.5.2)

      PLATFORMS
        ruby

      DEPENDENCIES
        puma (= 3.12.6)
        rack (= 1.5.2)
    LOCK
    lock = File.read(File.join(app, "Gemfile.lock"))
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "--app", app, "-s", "puma x1:1", "-s", "puma x2:1", "-e", "/", "-o", out)
    assert_equal 2, status
    assert_equal "Error: your app's Gemfile.lock names gems that are not installed (rack 1.5.2, puma 3.12.6): " \
                 "run `bundle install` in #{app}\n", err
    assert_empty stdout
    refute File.exist?(out), "nothing booted: no run directory"
    assert_equal lock, File.read(File.join(app, "Gemfile.lock")), "the check leaves the app's lock as it was (--dry-run)"
  end
end
