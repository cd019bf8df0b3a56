# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/plan/config"

# Issue 45, item 1: the run's settings are one frozen value. A misspelt key
# is an error (it read nil before, as a Hash does); meta.json's string keys
# read as the symbols do; a copy with other values is a Settings again.
class SettingsTest < Minitest::Test
  Config = Rackbench::Config

  def settings = Config.build(concurrency: "8", decide: true)

  def test_built_once_frozen_every_default_key
    s = settings
    assert_kind_of Config::Settings, s
    assert s.frozen?
    assert_equal Config::DEFAULTS.keys, s.keys
    assert_equal [8], s[:concurrency]
    assert_equal [8], s["concurrency"], "a string key reads as its symbol"
    assert_equal [8], s.concurrency
    assert_raises(FrozenError, NoMethodError) { s[:concurrency] = [1] }
  end

  def test_a_misspelt_key_is_an_error
    e = assert_raises(ArgumentError) { settings[:concurency] }
    assert_match(/no setting :concurency.*concurrency/, e.message)
    assert_raises(ArgumentError) { settings.fetch(:max_round) }
    assert_equal :none, settings.fetch(:max_round, :none), "fetch's default is for a key it lacks"
    refute settings.key?(:max_round)
    assert_raises(ArgumentError) { settings.with(durration: 1.0) }
  end

  def test_with_is_a_settings_again_and_leaves_the_original
    s = settings
    t = s.with(duration: 5.0)
    assert_kind_of Config::Settings, t
    assert t.frozen?
    assert_equal [2.0, 5.0], [s[:duration], t[:duration]]
    assert_equal t, s.merge(duration: 5.0)
    assert_equal s.to_h.merge(duration: 5.0), t.to_h
  end

  # meta.json's config (Config.dump, string keys) built again is the same value.
  def test_meta_json_reads_back_through_the_builder
    s = settings
    back = Config.load(JSON.parse(JSON.generate(Config.dump(s))))
    assert_equal s.to_h.except(:setups), back.to_h.except(:setups)
    assert_equal s[:setups].map(&:label), back[:setups].map(&:label)
  end
end
