# frozen_string_literal: true

require "test_helper"
require_relative "../../support/help_text"
require "rackbench/cli"
require "rackbench/cli/options"
require "rackbench/cli/step_options"
require "rackbench/plan/config"

# --setup-cmd and --fetch-gems (issue 44, item 2): declared once
# (CLI::Options), taken by run and, through StepOptions, by bisect and
# gate, which pass them on to each step's run; what they may be alone and
# with the other settings is one line each.
class SetupCmdOptionsTest < Minitest::Test
  O = Rackbench::CLI::Options

  include HelpText

  def parse(*argv)
    values = {}
    parser = OptionParser.new { |o| O.define(o, values, Rackbench::CLI::StepOptions::STEP_SETUP) }
    parser.parse!(argv)
    values
  end

  def test_the_command_as_typed_none_and_the_flag
    assert_equal({ setup_cmd: "bin/setup --skip-server" }, parse("--setup-cmd", "bin/setup --skip-server"))
    assert_equal({ setup_cmd: "-x" }, parse("--setup-cmd=-x"))
    assert_equal({ setup_cmd: "" }, parse("--no-setup-cmd"))
    assert_equal({ setup_cmd: "" }, parse("--setup-cmd", ""))
    assert_equal({ fetch_gems: true }, parse("--fetch-gems"))
    e = assert_raises(Rackbench::UsageError) { parse("--setup-cmd") }
    assert_equal "--setup-cmd needs a command, e.g. --setup-cmd 'bin/setup'", e.message
  end

  def test_settings_that_cannot_hold_are_refused_in_one_line
    app = File.expand_path("../../fixtures/apps/cpu_work", __dir__)
    [[{ setup_cmd: "bin/setup" }, /\A--setup-cmd runs in your app's directory: give --app PATH/],
     [{ setup_cmd: "bin/setup", app: "arena" }, /give --app PATH/],
     [{ setup_cmd: "bin/setup", url: "http://127.0.0.1:9/" }, /the server at --url is not one rackbench boots/],
     [{ fetch_gems: true, app: app }, /\A--fetch-gems installs the gems a --ref commit's Gemfile\.lock names: add --ref/],
     [{ setup_cmd: 3, app: app }, /takes a command as text/]].each do |layer, pattern|
      e = assert_raises(Rackbench::UsageError, layer.inspect) { Rackbench::Config.build(layer) }
      assert_match pattern, e.message
      refute_includes e.message, "\n"
    end
    assert_equal "bin/setup", Rackbench::Config.build(setup_cmd: "bin/setup", app: app)[:setup_cmd], "without --ref: the app itself"
    assert_equal "", Rackbench::Config.build(setup_cmd: "")[:setup_cmd], "--no-setup-cmd needs no app"
  end

  def test_a_run_without_a_command_is_refused_before_anything_runs
    status, _out, err = run_cli("run", "--app", tmpdir, "--setup-cmd")
    assert_equal 2, status
    assert_equal "Error: --setup-cmd needs a command, e.g. --setup-cmd 'bin/setup'\n", err.lines.first
  end

  # bisect and gate pass them on to every step's run as run parses them.
  class Step
    include Rackbench::CLI::StepOptions

    public :run_argv
  end

  def test_steps_pass_them_on_to_their_runs
    base = { app: "/a", endpoint: "/", setup: "puma x1:1" }
    plain = Step.new.run_argv(base)
    refute(plain.any? { |a| a.include?("setup-cmd") || a == "--fetch-gems" }, plain.inspect)
    given = Step.new.run_argv(base.merge(setup_cmd: "bin/setup && echo ok", fetch_gems: true))
    assert_equal ["--setup-cmd=bin/setup && echo ok", "--fetch-gems"], given.last(2)
    assert_equal ["--setup-cmd="], Step.new.run_argv(base.merge(setup_cmd: "")).last(1), "--no-setup-cmd stays none"
    values = {}
    OptionParser.new { |o| O.define(o, values, %i[setup_cmd fetch_gems]) }.parse!(given.last(2))
    assert_equal({ setup_cmd: "bin/setup && echo ok", fetch_gems: true }, values)
  end

  def test_help_of_run_bisect_and_gate_shows_the_one_declaration
    %w[run bisect gate].each do |command|
      text = help(command)
      assert_includes line(text, "--[no-]setup-cmd [CMD]"), "bin/rails db:prepare", command
      assert_includes line(text, "--fetch-gems"), "bundle install", command
    end
  end
end
