# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/suites"

# The registry, the `suites` command, and how `run --suite` layers its settings.
class SuiteRegistryTest < Minitest::Test
  def test_every_suite_names_its_seed_and_answers_the_contract
    assert_equal %w[pavese arena finc jruby nginx field-2026], Rackbench::Suites.names
    Rackbench::Suites::ALL.each do |name, suite|
      assert_match(/\A\d{3}\z/, suite::SEED, name) unless name == "field-2026" # no seed made it
      refute_empty suite::TITLE
      refute_empty suite.summary
      assert_match(/Quick:/, suite.description(2), name)
      assert suite.respond_to?(:findings), name
    end
  end

  def test_an_unknown_suite_is_a_usage_error_with_a_suggestion
    e = assert_raises(Rackbench::UsageError) { Rackbench::Suites.fetch("pavesse") }
    assert_match(/unknown suite "pavesse" \(did you mean "pavese"\?\); accepted: pavese, arena/, e.message)
  end

  def test_run_with_an_unknown_suite_or_quick_alone_is_one_line_and_exit_2
    [[%w[run --suite pavse], /unknown suite "pavse" \(did you mean "pavese"\?\)/],
     [%w[run --quick], /--quick picks a suite's quick variant: add --suite NAME/],
     [%w[suites ngnix], /unknown suite "ngnix" \(did you mean "nginx"\?\)/]].each do |argv, message|
      status, _out, err = run_cli(*argv)
      assert_equal 2, status, err
      assert_match message, err
      assert_equal 1, err.lines.size, err
    end
  end

  def test_suites_lists_one_line_each_and_shows_one_suite
    status, out, err = run_cli("suites")
    assert_equal 0, status, err
    Rackbench::Suites.names.each { |name| assert_equal 1, out.lines.count { |l| l.start_with?("#{name} ") }, name }
    assert_match(/^pavese\s+\[000\] .*quick ~\d+ min, full ~[\d.]+ h$/, out)
    status, out, = run_cli("suites", "arena")
    assert_equal 0, status
    assert_match(/--engine siege/, out)
    assert_match(/1,024/, out)
    assert_match(/^quick \(~.*\):\n  setups +thin \| unicorn x\d/, out)
  end

  # defaults < suite < plan file < command line
  def test_suite_settings_sit_between_defaults_and_the_plan_file
    require "rackbench/cli/run"
    plan = File.join(tmpdir, "plan.rb")
    File.write(plan, "duration 5\nsetup \"puma x1:2\"\n")
    run = Rackbench::CLI::RunCommand.new(out: StringIO.new, err: StringIO.new, env: {})
    suite_only = run.send(:layered_config, { suite: "pavese", quick: true }, nil)
    assert_equal 2.0, suite_only[:duration]
    assert_equal 0.2, suite_only[:upstream_delay]
    assert_equal Rackbench::Config::DEFAULTS[:stop_timeout], suite_only[:stop_timeout], "defaults fill the rest"
    with_plan = run.send(:layered_config, { suite: "pavese", quick: true }, plan)
    assert_equal 5.0, with_plan[:duration]
    assert_equal ["puma x1:2"], with_plan[:setups].map(&:label)
    assert_equal [1, 30], with_plan[:concurrency]
    with_cli = run.send(:layered_config, { suite: "pavese", quick: true, duration: "1" }, plan)
    assert_equal 1.0, with_cli[:duration]
    assert_equal "pavese", run.instance_variable_get(:@suite)
  end
end
