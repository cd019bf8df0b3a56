# frozen_string_literal: true

require "test_helper"
require "minitest/mock"
require "rackbench/cli"
require "rackbench/plan"
require "rackbench/plan/setup"

# The line an interrupted run ends on: where its trials are kept, how to
# resume, and the trial the signal cut short, which the resume measures again.
class CliInterruptedLineTest < Minitest::Test
  def interrupt(trial: nil, run_dir: nil)
    lambda do |*|
      error = Rackbench::Interrupted.new(2)
      error.trial = trial
      error.run_dir = run_dir
      raise error
    end
  end

  def trial(take: nil)
    Rackbench::Plan::Trial.new(setup: Rackbench::Setup.parse("unicorn x2"), endpoint: "/hello", concurrency: 8,
                               repetition: 2, take: take)
  end

  def test_the_trial_under_way_is_named_as_measured_again
    dir = tmpdir
    status, _out, err = Rackbench::CLI.stub(:dispatch, interrupt(trial: trial, run_dir: dir)) { run_cli("run") }
    assert_equal 130, status
    assert_equal "Interrupted by SIGINT: servers stopped; completed trials are kept in #{dir} (rackbench run --resume #{dir}); " \
                 "the trial under way (unicorn x2 /hello c=8, round 2) was not stored: the resume measures it again\n", err
    _, _, err = Rackbench::CLI.stub(:dispatch, interrupt(trial: trial(take: 3), run_dir: dir)) { run_cli("run") }
    assert_match(/\(unicorn x2 \/hello c=8, round 2, take 3\) was not stored/, err)
  end

  def test_nothing_said_of_a_trial_between_trials_or_before_any_was_kept
    dir = tmpdir
    _, _, err = Rackbench::CLI.stub(:dispatch, interrupt(run_dir: dir)) { run_cli("run") }
    refute_match(/trial under way/, err, "interrupted between trials: none was cut short")
    _, _, err = Rackbench::CLI.stub(:dispatch, interrupt(trial: trial)) { run_cli("run") }
    assert_equal "Interrupted by SIGINT: servers stopped\n", err, "nothing kept, nothing to resume"
    _, _, err = Rackbench::CLI.stub(:dispatch, interrupt(trial: trial, run_dir: dir)) { run_cli("capacity") }
    refute_match(/trial under way/, err, "capacity and tune are not resumed")
  end
end
