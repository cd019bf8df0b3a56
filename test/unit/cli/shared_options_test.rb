# frozen_string_literal: true

require "test_helper"
require_relative "../../support/help_text"
require "stringio"
require "rackbench/cli"
require "rackbench/cli/options"

# run, report and compare take their options from the one declaration of
# each (CLI::Options): --margin's help, parser and default are the same in
# all three, the default from Stats::Decision; report's format options are
# declared there too; a server contributes its own tune option.
class SharedOptionsTest < Minitest::Test
  O = Rackbench::CLI::Options

  include HelpText

  def test_the_margin_is_declared_once_with_its_default_from_the_decisions
    shown = format("%g", Rackbench::Stats::Decision::DEFAULT_MARGIN * 100)
    assert_equal shown, O::MARGIN_DEFAULT
    declared = O::DECLARED.fetch(:margin).help
    { "run" => "(default: #{shown})", "report" => "(default: the run's, #{shown})",
      "compare" => "(default: RUN_A's, else #{shown})" }.each do |command, default|
      text = line(help(command), "--margin PERCENT")
      assert_includes text, declared, "#{command} shows the declaration's help"
      assert_includes text, default, "#{command} shows the default"
    end
    assert_in_delta 0.03, O::DECLARED.fetch(:margin).parse.call("3%")
    assert_raises(Rackbench::UsageError) { O::DECLARED.fetch(:margin).parse.call("100") }
  end

  def test_report_s_options_are_declared
    text = help("report")
    %w[--format --pivot --output --why --margin].each { |flag| line(text, flag) }
    assert_match(/\(default table\)$/, line(text, "--format"))
    Rackbench::Report::Formats.names.each { |name| assert_includes line(text, "--format"), "#{name} (" }
  end

  def test_compare_s_options_are_declared
    text = help("compare")
    %w[--pair --margin --fail-if-slower].each { |flag| line(text, flag) }
    assert_equal %w[a b], O.pair(" a = b ")
    assert_equal ["puma x2:5", "puma x2:5 on yjit"], O.pair("puma  x2:5=puma x2:5 on yjit")
    e = assert_raises(Rackbench::UsageError) { O.pair("a=") }
    assert_equal '--pair "a=": write "SETUP IN RUN_A=SETUP IN RUN_B"', e.message
  end

  # --fail-if-slower is declared once, for run --ref and compare, with
  # compare's parser; --time-budget is two options (run --decide's, tune's
  # search) with one parser, each its own floor.
  def test_the_gate_option_is_declared_once
    assert_equal [:fail_if_slower], O::DECLARED.values.select { |o| o.flags.include?("--fail-if-slower PERCENT") }.map(&:key)
    %w[run compare].each { |command| line(help(command), "--fail-if-slower PERCENT") }
    assert_in_delta 2.5, O::DECLARED.fetch(:fail_if_slower).parse.call("2.5%")
    assert_raises(Rackbench::UsageError) { O::DECLARED.fetch(:fail_if_slower).parse.call("100") }
    run, tune = O::DECLARED.values_at(:decide_time, :time_budget)
    assert_equal [["--time-budget TIME"], ["--time-budget TIME"], 5.0], [run.flags, tune.flags, run.parse.call("5s")]
    e = assert_raises(Rackbench::UsageError) { tune.parse.call("5s") }
    assert_equal '--time-budget "5s": write a duration of at least 10 s such as 10m, 90s or 1h', e.message
  end

  # OptionParser reads a help line that starts with "-" as one more flag
  # of the option ("--ref than the first" made --ref a --fail-if-slower).
  def test_no_help_line_starts_with_a_dash
    O::DECLARED.each_value do |option|
      lines = Array(option.help.respond_to?(:call) ? option.help.call : option.help)
      lines.each { |text| refute_match(/\A-/, text, "#{option.key}'s help") }
    end
  end

  # A server's tune option comes from its adapter (Server::Base.ladder_option).
  def test_servers_contribute_their_thread_ladders
    with = Rackbench::Server::ADAPTERS.select { |_, klass| klass.ladder_option }
    assert_equal with.keys.to_h { |key| [key, :"#{key}_threads"] }, O::LADDERS
    with.each do |key, klass|
      flag = klass.ladder_option.first.split.first
      option = O::DECLARED.fetch(:"#{key}_threads")
      assert_equal klass.thread_ladder.join(","), option.default
      assert_equal [1, 4], option.parse.call("4,1")
      assert_match(/\A#{flag} "0"/, assert_raises(Rackbench::UsageError) { option.parse.call("0") }.message)
      assert_match(/\(default #{klass.thread_ladder.join(',')}\)$/, line(help("tune"), flag))
    end
  end
end
