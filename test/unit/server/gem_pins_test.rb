# frozen_string_literal: true

require "test_helper"
require "rackbench/server"
require "rackbench/workload/app"

# The Gemfile lines of the missing-server hint are rackbench's own pins.
class GemPinsTest < Minitest::Test
  ROOT = File.expand_path("../../..", __dir__)
  Pins = Rackbench::Server::GemPins

  # {gem => requirement} of a Gemfile's `gem "name", "req"` lines.
  def pins_of(gemfile)
    File.read(gemfile).scan(/^gem "([\w-]+)", "([^"]+)"/).to_h
  end

  # The Rails workload has the servers of the default plan and Falcon and
  # Pitchfork; the 2026 field (Itsi, Iodine, Agoo) is rackbench's bundle only.
  RAILS_LACKS = %w[itsi-server itsi-scheduler iodine agoo].freeze

  def test_every_pin_is_rackbenchs_own_gemfiles_and_the_rails_workloads
    own = pins_of(File.join(ROOT, "Gemfile"))
    rails = pins_of(File.join(ROOT, "apps", "rails", "Gemfile"))
    Pins::PINS.each do |gem, pin|
      assert_equal own.fetch(gem), pin, "#{gem}: rackbench's Gemfile pins #{own[gem].inspect}"
      next refute(rails.key?(gem), "#{gem}: apps/rails/Gemfile has it now: check it here") if RAILS_LACKS.include?(gem)

      assert_equal rails.fetch(gem), pin, "#{gem}: apps/rails/Gemfile pins #{rails[gem].inspect}"
    end
  end

  def test_every_server_gem_of_rackbenchs_gemfile_has_a_pin
    own = pins_of(File.join(ROOT, "Gemfile"))
    servers = Rackbench::Server.all.map(&:gem_name) & own.keys
    assert_equal %w[puma unicorn thin falcon pitchfork itsi-server iodine agoo].sort, servers.sort
    servers.each { |gem| assert Pins::PINS.key?(gem), "#{gem} has no pin" }
    Pins::COMPANIONS.each_value { |gems| gems.each_key { |gem| assert Pins::PINS.key?(gem), "companion #{gem} has no pin" } }
  end

  def app_with(gemfile, lock)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    File.write(File.join(dir, "Gemfile"), gemfile)
    File.write(File.join(dir, "Gemfile.lock"), lock)
    Rackbench::Workload::App.resolve(dir)
  end

  def test_falcon_brings_json_unless_the_app_chose_its_json
    bare = app_with(%(gem "rails"\n), "GEM\n  specs:\n    rails (7.1.3)\n")
    assert_equal "add `gem \"falcon\", \"0.51.1\"` and `gem \"json\", \"2.6.3\"` (falcon's dependencies would otherwise " \
                 "pull json 3, which breaks Rails) to #{bare.gemfile}, then run `bundle install` in #{bare.root}",
                 Pins.hint(%w[falcon], bare)
    locked = app_with(%(gem "rails"\n), "GEM\n  specs:\n    json (2.7.2)\n    rails (7.1.3)\n")
    assert_equal "add `gem \"falcon\", \"0.51.1\"` to #{locked.gemfile}, then run `bundle install` in #{locked.root}",
                 Pins.hint(%w[falcon], locked)
    named = app_with(%(gem "rails"\ngem "json"\n), "GEM\n  specs:\n    rails (7.1.3)\n")
    refute_match(/json/, Pins.hint(%w[falcon], named))
  end

  def test_itsi_brings_its_fiber_scheduler
    app = app_with(%(gem "rails"\n), "GEM\n  specs:\n    rails (7.1.3)\n")
    assert_equal "add `gem \"itsi-server\", \"0.2.27\"` and `gem \"itsi-scheduler\", \"0.2.27\"` (Itsi's fiber scheduler, " \
                 "for \"itsi xN fibers\") to #{app.gemfile}, then run `bundle install` in #{app.root}",
                 Pins.hint(%w[itsi-server], app)
  end

  def test_several_servers_in_one_clause_and_a_named_one_only_needs_bundle_install
    app = app_with(%(gem "rails"\ngem "thin"\n), "GEM\n  specs:\n    rails (7.1.3)\n")
    assert_equal "add `gem \"unicorn\", \"6.1.0\"` and `gem \"pitchfork\", \"0.18.2\"` to #{app.gemfile} (it names thin " \
                 "already, but Gemfile.lock lacks it), then run `bundle install` in #{app.root}",
                 Pins.hint(%w[unicorn thin pitchfork], app)
    assert_equal "its Gemfile names thin but Gemfile.lock lacks it: run `bundle install` in #{app.root}", Pins.hint(%w[thin], app)
  end

  # A Roda app pinned to Rack 1.6 (issue 34): pitchfork 0.18.2 needs Rack >= 2,
  # so the hint says so instead of a line bundle install would refuse.
  def test_a_server_the_apps_rack_is_too_old_for_is_not_offered
    old = app_with(%(gem "roda"\ngem "rack", "~> 1.6"\n), "GEM\n  specs:\n    rack (1.6.13)\n    roda (3.30.0)\n")
    assert_equal "pitchfork 0.18.2 needs Rack >= 2.0 and your Gemfile.lock has rack 1.6.13: upgrade Rack in #{old.gemfile} " \
                 "or leave that server out", Pins.hint(%w[pitchfork], old)
    both = Pins.hint(%w[unicorn pitchfork], old)
    assert_match(/\Aadd `gem "unicorn", "6.1.0"` to .*, then run `bundle install` in .*; pitchfork 0.18.2 needs Rack >= 2.0/, both)
    refute_match(/gem "pitchfork"/, both)
    new = app_with(%(gem "roda"\n), "GEM\n  specs:\n    rack (3.1.8)\n    roda (3.80.0)\n")
    assert_match(/add `gem "pitchfork", "0.18.2"`/, Pins.hint(%w[pitchfork], new))
  end

  # RACK_MIN is what the pinned gems' own gemspecs declare, where installed.
  def test_each_rack_minimum_is_the_installed_gems_own
    Pins::RACK_MIN.each do |gem, min|
      spec = Gem::Specification.find_all_by_name(gem, Pins::PINS[gem]).first
      next unless spec

      rack = spec.runtime_dependencies.find { |d| d.name == "rack" }
      lowest = rack.requirement.requirements.select { |op, _| op.start_with?(">") }.map { |_, v| v }.min
      assert_equal Gem::Version.new(min), lowest, "#{gem} #{spec.version}: #{rack.requirement}"
    end
  end
end
