# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "rackbench/server/passenger"
require "rackbench/plan/setup"

# Passenger's --ruby: Ruby itself for an app without a Gemfile, a wrapper
# that loads the app's bundle first for one with a Gemfile.
class PassengerArgsTest < Minitest::Test
  P = Rackbench::Server::Passenger
  BundledApp = Struct.new(:gemfile) do
    def bundled? = true
  end

  def ruby_arg(argv) = argv[argv.index("--ruby") + 1]

  def test_an_app_with_a_gemfile_runs_on_a_bundler_setup_wrapper
    adapter = P.new(app: BundledApp.new("/home/me/my app/Gemfile"))
    setup = Rackbench::Setup.parse("passenger x2")
    files = adapter.files(setup, port: 3000, dir: "/run/d")
    assert_equal ["/run/d/passenger-ruby"], files.keys
    script = files.fetch("/run/d/passenger-ruby")
    assert script.start_with?("#!/bin/sh\n"), "a script: ServerInstance writes it executable"
    assert_includes script, "BUNDLE_GEMFILE=/home/me/my\\ app/Gemfile exec #{RbConfig.ruby} -rbundler/setup \"$@\"\n"
    assert_equal "/run/d/passenger-ruby", ruby_arg(adapter.argv(setup, app: "/home/me/my app/config.ru", port: 3000, dir: "/run/d"))
  end

  def test_an_app_without_a_gemfile_runs_on_ruby_itself
    [P.new, P.new(app: Struct.new(:bundled?).new(false))].each do |adapter|
      setup = Rackbench::Setup.parse("passenger x1")
      assert_equal({}, adapter.files(setup, port: 3000, dir: "/run/d"))
      assert_equal RbConfig.ruby, ruby_arg(adapter.argv(setup, app: "/a/config.ru", port: 3000, dir: "/run/d"))
    end
  end
end
