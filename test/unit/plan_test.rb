# frozen_string_literal: true

require "test_helper"
require "rackbench/plan"

class PlanTest < Minitest::Test
  def plan(**settings)
    Rackbench::Plan.new(Rackbench::Config.build(settings))
  end

  def test_expands_setups_endpoints_levels_and_repetitions
    p = plan(setups: ["puma x2:5", "unicorn x2"], endpoints: ["/hello", "/pause/0.05"], concurrency: [1, 4, 16], repeat: 2)
    assert_equal 2 * 2 * 3 * 2, p.trials.size
    assert_equal p.trials.map(&:key).uniq.size, p.trials.size
    first = p.trials.first
    assert_equal ["puma x2:5", "/hello", 1, 1], [first.setup.label, first.endpoint, first.concurrency, first.repetition]
  end

  def test_setup_order_rotates_between_repetitions
    p = plan(setups: ["puma x2:5", "unicorn x2", "thin"], repeat: 3)
    order = p.schedule.map { |rep, s| [rep, s.label] }
    assert_equal [[1, "puma x2:5"], [1, "unicorn x2"], [1, "thin"],
                  [2, "unicorn x2"], [2, "thin"], [2, "puma x2:5"],
                  [3, "thin"], [3, "puma x2:5"], [3, "unicorn x2"]], order
  end

  def test_quick_plan_defaults
    p = plan
    assert_equal Rackbench::Config::QUICK_ENDPOINTS, p.endpoints
    assert_equal Rackbench::Config.default_setups.size, p.setups.size
  end

  def test_the_users_app_and_a_url_default_to_the_root
    assert_equal ["/"], plan(app: "/srv/blog").endpoints, "--app PATH has no /hello"
    assert_equal ["/"], plan(url: "http://127.0.0.1:3000").endpoints
    assert_equal Rackbench::Config::QUICK_ENDPOINTS, plan(app: "rails").endpoints, "the built-in Rails app serves the arena's paths"
    assert_equal ["/posts"], plan(app: "/srv/blog", endpoints: ["/posts"]).endpoints
  end

  def test_external_url_is_one_unmanaged_setup
    p = plan(url: "http://127.0.0.1:3000", endpoints: ["/"])
    assert p.external?
    assert_equal ["http://127.0.0.1:3000"], p.setups.map(&:label)
    assert_equal "external", p.setups.first.server
  end
end
