# frozen_string_literal: true

require "test_helper"
require "rackbench/plan"

# run --ref's bad input, one line each before anything boots, and the plan
# it makes: every setup once per commit, labelled by the commit.
class RefsRuleTest < Minitest::Test
  def build(**cli)
    Rackbench::Config.build({ app: "/srv/app" }.merge(cli))
  end

  def refuse(message, **cli)
    e = assert_raises(Rackbench::UsageError) { build(**cli) }
    assert_match message, e.message
  end

  def test_bad_refs_are_refused_with_what_to_do
    refuse(/--ref main alone compares nothing: give two or more, e\.g\. --ref main --ref HEAD/, refs: %w[main])
    refuse(/--ref main is given twice; .*--ref main --ref main~0/, refs: %w[main main])
    refuse(/--ref compares commits of your app: give --app PATH/, refs: %w[a b], app: nil)
    refuse(/--ref measures the app rackbench boots: drop --url/, refs: %w[a b], url: "http://127.0.0.1:9/")
    refuse(/--fail-if-slower on a run gates a change of your app: add --ref BASE --ref HEAD/, fail_if_slower: 5.0)
    refuse(/--fail-if-slower takes a percentage from 0 up to \(not including\) 100/, refs: %w[a b], fail_if_slower: 100.0)
    assert_equal 5.0, build(refs: %w[a b], fail_if_slower: 5.0)[:fail_if_slower]
  end

  def test_the_plan_runs_every_setup_once_per_commit
    refs = [{ "name" => "main", "sha" => "1a2b3c4d" * 5 }, { "name" => "HEAD", "sha" => "5d6e7f80" * 5 }]
    one = Rackbench::Plan.new(build(refs: refs, setups: ["puma x2:5"]))
    assert_equal %w[main@1a2b3c4 HEAD@5d6e7f8], one.setups.map(&:label)
    assert_equal refs, one.setups.map(&:ref)
    assert_equal [["puma x2:5", %w[main@1a2b3c4 HEAD@5d6e7f8]]], one.ref_groups
    two = Rackbench::Plan.new(build(refs: refs, setups: ["puma x2:5", "unicorn x2"]))
    assert_equal ["puma x2:5 main@1a2b3c4", "puma x2:5 HEAD@5d6e7f8", "unicorn x2 main@1a2b3c4", "unicorn x2 HEAD@5d6e7f8"],
                 two.setups.map(&:label)
    assert_equal ["puma x2:5", "unicorn x2"], two.ref_groups.map(&:first)
    assert_equal 4 * two.config[:concurrency].size, two.trials.size, "4 setups x / x each level, one round"
    refute Rackbench::Plan.new(build(setups: ["puma x2:5"])).setups.first.to_h.key?("ref"), "no ref, no key"
  end

  # The rule alone (Config::RULES runs it after the values are parsed).
  def test_the_rule_alone_settles_no_refs_as_an_empty_list
    cfg = Rackbench::Config.build.to_h.merge(refs: nil).freeze
    assert_equal({ refs: [] }, Rackbench::Config::Rules::Refs.check(cfg), "returned, cfg read only")
    assert_nil cfg[:refs]
    e = assert_raises(Rackbench::UsageError) { Rackbench::Config::Rules::Refs.check(cfg.merge(refs: %w[a b], app: nil)) }
    assert_match(/\A--ref compares commits of your app: give --app PATH/, e.message)
  end
end
