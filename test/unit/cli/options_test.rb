# frozen_string_literal: true

require "test_helper"
require_relative "../../support/help_text"
require "stringio"
require "rackbench/cli"
require "rackbench/cli/capacity"

# Options are declared once (CLI::Options): --help shows each default from
# its declaration and a command offers only the options it uses.
class CliOptionsTest < Minitest::Test
  include HelpText

  def test_help_defaults_come_from_config_defaults
    run = help("run")
    assert_match(/\(default 2\)$/, line(run, "--duration"))
    assert_match(/\(default 1,8\)$/, line(run, "--concurrency"))
    assert_match(/\(default 30\)$/, line(run, "--timeout"))
    assert_match(/\(default 20000\)$/, line(run, "--upstream-bytes"))
    # The rule wrk applies when --threads is not given (Load::Wrk#thread_count).
    assert_match(/largest divisor of the concurrency up to min\(concurrency, cores, 2\)/, line(run, "--threads"))
  end

  # run --help says what the quick plan is, from the defaults themselves.
  def test_run_help_states_the_quick_plan
    require "rackbench/cli/run"
    text = Rackbench::CLI::RunCommand.banner(4)
    assert_match(/\(puma x4:5, unicorn x4, thin, passenger x4, falcon x4, pitchfork x4\)/, text)
    assert_match(%r{endpoints #{Rackbench::Config::QUICK_ENDPOINTS.join(', ')}, concurrency 8,}, text)
    assert_match(/1 s per trial after a 1 s warm-up per endpoint, rounds \(fresh boots\) until each endpoint has a decided/, text)
    assert_match(/at most 4 rounds and 4.5 minutes\.$/, text)
    assert_includes help("run"), "each installed server of the\ndefault plan in its default setup for this machine's #{Etc.nprocessors} cores"
    assert_match(/^Opt-in: itsi, iodine, agoo \(name them with -s, or --suite field-2026\)\.$/, help("run"), "bin/setup installs them")
  end

  # capacity cools down 0 s by default (it was documented as 1).
  def test_capacity_shows_its_own_defaults_and_applies_them
    text = help("capacity")
    assert_match(/\(default 0\)$/, line(text, "--cooldown"))
    assert_match(/\(default 500ms\)$/, line(text, "--slo-p99"))
    assert_match(%r{rackbench-runs/capacity-<timestamp>}, line(text, "--out"))
    # What the capacity command itself parses (its own parser and defaults),
    # as the plan's configuration takes it.
    command = Rackbench::CLI::CapacityCommand.new(out: StringIO.new, err: StringIO.new, env: {})
    given = command.send(:options, %w[--slo-p99 2s -e /hello])
    assert_equal 2000.0, given[:slo_p99], "the command line wins over the command's default"
    plain = command.send(:options, %w[-e /hello])
    assert_equal 500.0, plain[:slo_p99], "the default the help shows is the one applied"
    config = Rackbench::Config.build(plain.except(*Rackbench::CLI::CapacityCommand::SEARCH))
    assert_equal [0.0, 1.0], config.values_at(:cooldown, :warmup), "capacity's cool-down and warm-up defaults, applied"
  end

  def test_capacity_offers_no_option_it_ignores
    text = help("capacity")
    %w[--concurrency --rate --repeat --engine --expected-latency --url --pid --resume].each do |flag|
      refute_includes text, flag
    end
    err = StringIO.new
    status = Rackbench::CLI.call(%w[capacity -e /hello --repeat 3], out: StringIO.new, err: err, env: {})
    assert_equal 2, status
    assert_match(/unknown option --repeat/, err.string)
  end

  def test_tune_marks_what_it_requires
    text = help("tune")
    assert_match(/\(required\)$/, line(text, "--memory-budget"))
    assert_match(/\(required\)$/, line(text, "--slo-p99"))
    assert_match(/\(default: not judged\)$/, line(text, "--health-timeout"))
    assert_match(/\(default 1,2,3,5,8,16\)$/, line(text, "--puma-threads"))
  end

  # No command writes a default into its help by hand.
  def test_no_hand_written_defaults_in_commands
    Dir[File.expand_path("../../../lib/rackbench/cli/*.rb", __dir__)].each do |file|
      next if File.basename(file) == "options.rb"

      File.foreach(file).with_index(1) do |text, n|
        refute_match(/\(default [^:]/, text, "#{File.basename(file)}:#{n} writes a default by hand")
      end
    end
  end
end
