# frozen_string_literal: true

require "test_helper"
require "minitest/mock"
require "rackbench/cli"
require "rackbench/cli/run_report"
require "rackbench/cli/run"
require "rackbench/calibration"
require "rackbench/store/run_dir"
require_relative "../report/run_fixture"

# Issue 42, items 6.5 and 6.6: how a run ends. run says when the CPU's
# speed moved during it (compare alone said it), and the Answer is the
# last thing the terminal shows, after the Report: line.
class CliRunEndingTest < Minitest::Test
  F = Rackbench::RunFixture

  def reading(value, samples)
    { "workload" => "fib(22)", "iterations_per_cpu_s" => value, "samples" => samples }
  end

  def fake_run(readings)
    queue = readings.dup
    Rackbench::Calibration.stub(:measure, ->(**) { queue.shift }) do
      run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/a", "-c", "1", "-d", "1",
              "--warmup", "0", "-r", "2", "-o", File.join(tmpdir, "run"))
    end
  end

  def test_a_cpu_speed_that_moved_during_the_run_is_said
    status, _out, err = fake_run([reading(660.0, [650.0, 660.0, 670.0]), reading(498.0, [490.0, 498.0, 505.0])])
    assert_equal 0, status, err
    line = err.lines.grep(/CPU's speed/).first.to_s
    assert_match(/\Awarning: the CPU's speed moved 33% during the run \(fib\(22\) iterations per CPU-second: start 660 -> end 498; /, line)
    assert_match(/decisions between setups are paired by round, but the machine was not steady/, line)
    assert_operator err.index(line), :<, err.index("Run directory:"), "said before the run's last lines"
  end

  def test_a_steady_cpu_or_one_within_its_own_spread_is_not
    [[reading(660.0, [650.0, 660.0, 670.0]), reading(650.0, [640.0, 650.0, 660.0])],
     [reading(660.0, [500.0, 660.0, 670.0]), reading(560.0, [550.0, 560.0, 600.0])]].each do |readings|
      status, _out, err = fake_run(readings)
      assert_equal 0, status, err
      assert_empty err.lines.grep(/CPU's speed/), err
    end
  end

  def test_the_answer_is_the_last_thing_shown
    dir = File.join(tmpdir, "run")
    trials = F.repetitions([1000, 1010, 990], little: true, setup: "puma x2:3", endpoint: "/hello", concurrency: 8) +
             F.repetitions([800, 805, 795], little: true, setup: "unicorn x2", endpoint: "/hello", concurrency: 8)
    F.write(dir, trials: trials, setups: [F.ok_setup("puma x2:3"), F.ok_setup("unicorn x2")])
    terminal = StringIO.new
    plan = Struct.new(:config, :ref_groups).new({}, [])
    status = Rackbench::CLI::RunReport.new(out: terminal, err: terminal, env: {}).call(Rackbench::Store::RunDir.open(dir), plan)
    assert_equal 0, status, terminal.string
    lines = terminal.string.lines.map(&:chomp)
    assert_equal Rackbench::Report::AnswerText::HEAD, lines.first, "the answer first, as before"
    assert_equal [Rackbench::Report::AnswerText::HEAD, lines[1]], lines.last(2), "and last, after the Report: line"
    assert_match(%r{\A  /hello c=8: puma x2:3 1000 req/s vs unicorn x2 800: req/s slower by 20%}, lines.last)
    assert_operator terminal.string.rindex("Report: "), :<, terminal.string.rindex(lines.last)
  end
end
