# frozen_string_literal: true

require "test_helper"
require "rackbench/server/puma"
require "rackbench/plan/setup"

# Puma's command line follows the version in the app's lock file.
class PumaArgsTest < Minitest::Test
  # An app whose Gemfile.lock holds this puma.
  LockedApp = Struct.new(:puma) do
    def bundled? = true
    def locked_version(_gem) = puma
  end

  def argv(version, label = "puma x1:2", dir: "/run/d")
    Rackbench::Server::Puma.new(app: LockedApp.new(version)).argv(Rackbench::Setup.parse(label), app: "/app/config.ru",
                                                                                                  port: 3000, dir: dir)
  end

  # From 5.0 rackbench's own config file (control app, 1 s worker check-ins)
  # replaces the app's, as --no-config would.
  def test_own_config_from_puma_5
    %w[5.0.0 5.5.0 8.0.2].each do |v|
      args = argv(v)
      refute_includes args, "--no-config"
      assert_equal "/run/d/puma.rb", args[args.index("-C") + 1], "puma #{v}"
    end
    adapter = Rackbench::Server::Puma.new(app: LockedApp.new("8.0.2"))
    text = adapter.files(Rackbench::Setup.parse("puma x2:2"), port: 3000, dir: "/run/d").fetch("/run/d/puma.rb")
    assert_match(/^activate_control_app "tcp:\/\/127.0.0.1:0", \{ auth_token: ENV.fetch\("RACKBENCH_PUMA_CONTROL_TOKEN"\) \}$/, text)
    assert_match(/^worker_check_interval 1/, text)
    refute_includes text, adapter.control_token, "the token stays out of stored files"
    assert_equal adapter.control_token, adapter.env(Rackbench::Setup.parse("puma x2:2"))["RACKBENCH_PUMA_CONTROL_TOKEN"]
  end

  def test_older_pumas_get_the_dash_config_they_accept
    %w[4.3.12 3.12.6 2.8.0].each do |v|
      args = argv(v)
      refute_includes args, "--no-config", "puma #{v} rejects --no-config"
      assert_equal "-", args[args.index("-C") + 1], "puma #{v}"
    end
    args = argv("2.7.1")
    refute_includes args, "--no-config"
    refute_includes args, "-C", "puma 2.7 searched for no config file"
  end

  def test_nopreload_on_puma_7_writes_preload_off
    adapter = Rackbench::Server::Puma.new(app: LockedApp.new("7.0.0"))
    setup = Rackbench::Setup.parse("puma x2:2 nopreload")
    files = adapter.files(setup, port: 3000, dir: "/run/d")
    assert_match(/^preload_app! false$/, files.fetch("/run/d/puma.rb"))
    args = adapter.argv(setup, app: "/app/config.ru", port: 3000, dir: "/run/d")
    assert_equal "/run/d/puma.rb", args[args.index("-C") + 1]
    refute_includes args, "--preload"
    refute_match(/preload_app!/, Rackbench::Server::Puma.new(app: LockedApp.new("6.4.2")).files(setup, port: 3000, dir: "/run/d").values.join,
                 "before 7 cluster mode does not preload unless asked")
    assert_includes argv("7.0.0", "puma x2:2"), "--preload"
  end
end
