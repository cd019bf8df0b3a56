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
    assert_equal ["/hello", 1, 1], [first.endpoint, first.concurrency, first.repetition]
  end

  # --per-boot K: a boot's takes of each cell back to back, the first take
  # keyed as a run without takes is; more than 20 is refused.
  def test_per_boot_measures_each_cell_k_times_back_to_back
    p = plan(setups: ["puma x2:5"], endpoints: ["/hello"], concurrency: [1, 4], per_boot: 3)
    keys = p.trials_for(p.setups.first, 1).map(&:key)
    assert_equal ["puma x2:5|/hello|1|1", "puma x2:5|/hello|1|1|t2", "puma x2:5|/hello|1|1|t3",
                  "puma x2:5|/hello|4|1", "puma x2:5|/hello|4|1|t2", "puma x2:5|/hello|4|1|t3"], keys
    assert_equal [nil], plan(setups: ["puma x2:5"], endpoints: ["/hello"], concurrency: [1]).trials.map(&:take)
    assert_equal 3, p.to_h["per_boot"]
    refute plan.to_h.key?("per_boot"), "meta's plan says per_boot only when it is more than 1"
    e = assert_raises(Rackbench::UsageError) { plan(per_boot: 21) }
    assert_equal "--per-boot must be a whole number from 1 to 20, or auto (got 21)", e.message
  end

  # --per-boot auto: two pilot rounds of 2 takes (keyed "take" 1 and 2),
  # then what the runner chose; refused without a round after the pilots.
  def test_per_boot_auto_takes_two_in_the_pilot_rounds_then_the_chosen_k
    p = plan(setups: ["puma x2:5"], endpoints: ["/hello"], concurrency: [1], per_boot: "auto", repeat: 4)
    assert_equal "auto", p.to_h["per_boot"]
    assert_equal [[1, 2], [2, 2], [3, 2], [4, 2]], (1..4).map { |r| [r, p.trials_for(p.setups.first, r).size] }
    p.choose_takes(1)
    assert_equal [2, 2, 1, 1], (1..4).map { |r| p.trials_for(p.setups.first, r).size }
    assert_equal [1], p.trials_for(p.setups.first, 3).map(&:take), "a chosen single take is still a take: stored per boot"
    assert_equal ["puma x2:5|/hello|1|1", "puma x2:5|/hello|1|1|t2"], p.trials_for(p.setups.first, 1).map(&:key)
    e = assert_raises(Rackbench::UsageError) { plan(per_boot: "auto", repeat: 2) }
    assert_match(/give -r 3 or more \(or --decide\)/, e.message)
    assert_equal "auto", plan(setups: ["puma x2:5", "unicorn x2"], per_boot: "AUTO", repeat: 2, decide: true).config[:per_boot]
    assert_raises(Rackbench::UsageError) { plan(per_boot: "often") }
  end

  # Rounds (RMIT): every setup once per round, a fresh random order each
  # round from the stored seed, so the same seed gives the same schedule.
  def test_each_round_measures_every_setup_once_in_a_seeded_random_order
    labels = ["puma x2:5", "unicorn x2", "thin"]
    p = plan(setups: labels, repeat: 12, seed: 7)
    rounds = p.schedule.group_by(&:first).transform_values { |pairs| pairs.map { |_, s| s.label } }
    assert_equal (1..12).to_a, rounds.keys
    rounds.each_value { |order| assert_equal labels.sort, order.sort }
    assert_operator rounds.values.uniq.size, :>, 2, "orders differ between rounds"
    assert_equal labels.size, rounds.values.map(&:first).uniq.size, "each setup goes first in some round"
    assert_equal p.schedule.map { |r, s| [r, s.label] }, plan(setups: labels, repeat: 12, seed: 7).schedule.map { |r, s| [r, s.label] }
    refute_equal rounds.values, plan(setups: labels, repeat: 12, seed: 8).schedule.group_by(&:first).values.map { |ps| ps.map { |_, s| s.label } }
  end

  # The quick plan: 4 endpoints x 2 levels per server, Falcon and Pitchfork
  # among the servers (6 x 8 = 48 trials when all are installed).
  def test_quick_plan_defaults
    p = plan
    assert_equal Rackbench::Config::QUICK_ENDPOINTS, p.endpoints
    assert_equal Rackbench::Config.default_setups.size, p.setups.size
    assert_equal [1, 8], p.levels
    setups = Rackbench::Config.default_setups(2)
    assert_equal 48, plan(setups: setups).trials.size
    assert_includes setups, "falcon x2"
    assert_includes setups, "pitchfork x2"
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
