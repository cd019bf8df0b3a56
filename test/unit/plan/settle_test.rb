# frozen_string_literal: true

require "test_helper"
require "fileutils"
require "json"
require "etc"
require "support/git_repo"
require "rackbench/plan/config"

# What a run's settings take from outside their layers is settled in the
# build, before the value is frozen (issue 45, item 1): the refs' commits
# and the default plan's servers. The commands no longer edit a built
# value (cli/run.rb resolved refs into a copy, ServerCheck.plan! rebuilt
# the settings with the default setups).
class SettleTest < Minitest::Test
  include Rackbench::GitRepo

  Config = Rackbench::Config

  def setup
    app_repo(File.join(tmpdir, "app"), "run ->(_) { [200, {}, ['one']] }\n")
    File.write(File.join(@repo, "config.ru"), "run ->(_) { [200, {}, ['two']] }\n")
    git("commit", "-qam", "two")
  end

  def test_refs_are_resolved_in_the_build_with_a_world_and_said_there
    world = Config::Settle::World.new
    built = Config.build({ app: @repo, refs: %w[main~1 main], setups: ["puma"] }, world: world)
    assert_predicate built, :frozen?
    assert_equal [{ "name" => "main~1", "sha" => git("rev-parse", "main~1") }, { "name" => "main", "sha" => git("rev-parse", "main") }],
                 built[:refs]
    assert_empty world.said

    Config.build({ app: @repo, refs: %w[main main~0], setups: ["puma"] }, world: world)
    assert_equal [[:note, "--ref main and main~0 are one commit (#{git('rev-parse', '--short=7', 'main')}): an A/A comparison"]],
                 world.said

    plain = Config.build(app: @repo, refs: %w[main~1 main], setups: ["puma"])
    assert_equal %w[main~1 main], plain[:refs], "a build without a world (a test, a search's level) asks no git"
    again = Config.load(Config.dump(built))
    assert_equal built[:refs], again[:refs], "a stored run's commits are read back as they are"
  end

  def test_a_bad_ref_is_refused_by_the_build
    e = assert_raises(Rackbench::UsageError) do
      Config.build({ app: @repo, refs: %w[main nope], setups: ["puma"] }, world: Config::Settle::World.new)
    end
    assert_match(/\A--ref "nope": no such commit/, e.message)
  end

  def test_the_default_plan_is_settled_in_the_build_and_checked_by_the_rules
    world = Config::Settle::World.new
    built = Config.build({}, world: world)
    refute_empty built[:setups]
    assert_equal Config.default_setups(installed: built[:setups].map(&:server)), built[:setups].map(&:label)
    assert_empty Config.build({})[:setups], "without a world the default plan stays unsettled"
    assert_empty Config.build({ url: "http://127.0.0.1:9/" }, world: world)[:setups], "--url boots nothing"
  end

  # tune's space is a member of the same build: its options made one
  # frozen Config::Space, its servers settled against the app, read back
  # from meta.json's dump through the same builder.
  def test_tunes_space_is_built_with_the_settings
    layer = { setups: [], space: { memory_budget: 2048, slo_p99: 300.0, max_errors: 0.1, time_budget: 600.0,
                                   ladders: { "puma" => [1, 2] }, predict: true } }
    world = Config::Settle::World.new
    built = Config.build(layer, world: world)
    space = built[:space]
    assert_kind_of Config::Space, space
    assert_predicate space, :frozen?
    assert_equal Etc.nprocessors, space.cores
    refute_empty space.servers, "not named: the default list's runnable servers"
    assert_empty built[:setups], "a tune boots its space's setups, not the default plan"
    assert_equal space.to_h, Config.load(JSON.parse(JSON.generate(Config.dump(built))))[:space].to_h
    assert_equal %w[puma], space.with(servers: %w[puma]).servers
    assert_raises(ArgumentError) { space[:memory_budgett] }

    e = assert_raises(Rackbench::UsageError) { Config.build(space: { slo_p99: 300.0 }) }
    assert_match(/--memory-budget/, e.message)
    e = assert_raises(Rackbench::UsageError) { Config.build(space: { memory_budget: 1, slo_p99: 1, budget: 2 }) }
    assert_equal "unknown tune setting budget", e.message
    e = assert_raises(Rackbench::UsageError) do
      Config.build({ space: { servers: %w[nosuch], memory_budget: 1, slo_p99: 1 } }, world: Config::Settle::World.new)
    end
    assert_match(/nosuch/, e.message)
  end

  # The commands read what the build settled: no copy of the settings is
  # made in cli/run.rb or cli/capacity.rb.
  def test_the_commands_change_no_built_value
    %w[run capacity tune].each do |name|
      source = File.read(File.expand_path("../../../lib/rackbench/cli/#{name}.rb", __dir__))
      refute_match(/config\.(merge|with)\(|Config\.build\(config/, source, "cli/#{name}.rb edits a built value")
    end
  end
end
