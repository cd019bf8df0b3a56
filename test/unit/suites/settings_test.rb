# frozen_string_literal: true

require "test_helper"
require "minitest/mock"
require "rackbench/suites"
require "rackbench/plan/config"
require "rackbench/workload/arena"
require_relative "../../../apps/arena/app"

# Every suite's settings at 2 and 4 cores, quick and full: they build into a
# valid configuration, name arena endpoints that exist with valid parameters,
# and scale with the cores.
class SuiteSettingsTest < Minitest::Test
  Arena = Rackbench::Workload::Arena
  PARAMS = {
    "fibonacci" => ->(raw) { Arena::Params.integer(raw, Arena::Fibonacci::RANGE, "n") },
    "pause" => ->(raw) { Arena::Pause.parse(raw) },
    "pause-and-render" => ->(raw) { Arena::Pause.parse(raw) },
    "pi" => ->(raw) { Arena::Params.integer(raw, Arena::Pi::RANGE, "digits") }
  }.freeze

  def each_variant
    Rackbench::Suites.names.product([2, 4], [true, false]).each do |name, cores, quick|
      yield name, cores, quick, Rackbench::Suites.settings(name, cores: cores, quick: quick)
    end
  end

  def assert_arena_endpoint(path, context)
    name, param = path.delete_prefix("/").split("/", 2)
    route = Arena::App::ROUTES[name]
    refute_nil route, "#{context}: no arena endpoint #{path}"
    assert_equal route.param, !param.nil?, "#{context}: #{path} parameter"
    PARAMS.fetch(name).call(param) if param # raises Halt on a bad parameter
  end

  def test_every_variant_builds_a_valid_config_of_arena_endpoints
    each_variant do |name, cores, quick, settings|
      context = "#{name} cores=#{cores} quick=#{quick}"
      assert_empty settings.keys - Rackbench::Config.keys, "#{context}: only plan-file keys"
      config = Rackbench::Config.build(settings)
      refute_empty config[:setups], context
      refute_empty config[:endpoints], context
      settings[:endpoints].each { |path| assert_arena_endpoint(path, context) }
      levels = config[:concurrency]
      assert_equal levels.sort, levels, "#{context}: levels ascend"
      assert_equal levels.uniq, levels, "#{context}: levels differ"
    end
  end

  def test_quick_variants_are_smaller_and_finish_in_a_few_minutes_on_2_cores
    Rackbench::Suites.names.each do |name|
      quick = Rackbench::Suites.settings(name, cores: 2, quick: true)
      full = Rackbench::Suites.settings(name, cores: 2, quick: false)
      assert_operator Rackbench::Suites.estimate_s(quick), :<=, 6 * 60, "#{name} --quick"
      assert_operator Rackbench::Suites.estimate_s(quick), :<, Rackbench::Suites.estimate_s(full), name
      assert_operator quick[:duration], :<, full[:duration], name
    end
  end

  def test_pavese_keeps_the_posts_parameters_and_scales_with_cores
    full = Rackbench::Suites.settings("pavese", cores: 4, quick: false)
    assert_equal ["unicorn x4", "unicorn x8", "puma x4:5", "puma x4:10", "puma x8:5", "puma x8:10"], full[:setups]
    assert_equal ["/fibonacci/32", "/pause/2", "/template-render", "/network-io", "/network-io-and-render",
                  "/pause-and-render/2"], full[:endpoints]
    assert_equal [1, 10, 20, 30, 40, 50], full[:concurrency]
    assert_equal [30, 5, 0.6], full.values_at(:duration, :cooldown, :upstream_delay)
    two = Rackbench::Suites.settings("pavese", cores: 2, quick: false)
    assert_includes two[:endpoints], "/fibonacci/30"
    assert_equal 60, two[:timeout], "c=50 x 2 s / 2 Unicorns = 50 s of queue, plus 20%"
    quick = Rackbench::Suites.settings("pavese", cores: 2, quick: true)
    assert_equal ["unicorn x2", "puma x2:5", "puma x2:10"], quick[:setups]
    assert_equal ["/fibonacci/25", "/pause/0.2"], quick[:endpoints].first(2)
    assert_equal [1, 30], quick[:concurrency]
    assert_equal [2, 0.2, 2], quick.values_at(:duration, :upstream_delay, :repeat)
  end

  def test_arena_finc_and_nginx_scale_their_setups
    assert_equal ["thin", "unicorn x4", "passenger x4", "puma x4:16"],
                 Rackbench::Suites.settings("arena", cores: 4)[:setups]
    assert_equal ["/server", "/pi/5000", "/pause/1", "/random"], Rackbench::Suites.settings("arena", cores: 2)[:endpoints]
    finc = Rackbench::Suites.settings("finc", cores: 4, quick: true)
    assert_equal ["unicorn x6", "puma x4:2", "puma x4:3", "puma x4:4", "puma x4:5", "puma x4:6"], finc[:setups]
    assert_equal [4, 16, 64, 256], finc[:concurrency]
    assert_equal "unicorn x3", Rackbench::Suites.settings("finc", cores: 2)[:setups].first
    assert_equal ["thin", "thin behind nginx", "unicorn x2", "unicorn x2 behind nginx"],
                 Rackbench::Suites.settings("nginx", cores: 2, quick: true)[:setups]
    assert_equal "nginx", Rackbench::Config.build(Rackbench::Suites.settings("nginx", cores: 2))[:setups][1].front
  end

  def test_jruby_runs_puma_on_jruby_with_siege_and_a_steady_warm_up
    quick = Rackbench::Suites.settings("jruby", cores: 4, quick: true)
    assert_equal ["unicorn x4", "puma x1:16 on jruby"], quick[:setups]
    assert_equal ["siege-close", "steady", 3, 30], quick.values_at(:engine, :warmup, :warmup_window, :warmup_max)
    config = Rackbench::Config.build(quick)
    assert_equal "jruby", config[:setups].last.runtime
    assert_match(/--engine wrk/, Rackbench::Suites::Jruby.description(4))
  end
end
