# frozen_string_literal: true

require "test_helper"
require_relative "run_fixture"

class CliCompareTest < Minitest::Test
  F = Rackbench::RunFixture
  CELL = { setup: "puma x2:3", endpoint: "/hello", concurrency: 8 }.freeze

  def run_with(name, trials)
    F.write(File.join(tmpdir, name), trials: trials)
  end

  def test_same_within_noise_for_equal_distributions
    a = run_with("a", F.repetitions([98, 100, 102], **CELL))
    b = run_with("b", F.repetitions([101, 99, 100], **CELL))
    status, out, err = run_cli("compare", a, b, "--fail-if-slower", "1")
    assert_equal 0, status, err
    assert_match(/Method: Welch's t-test on the repetitions \(two-sided, alpha = 0.05\)/, out)
    assert_match(/^puma x2:3\s+8\s+req\/s\s+100 ±2% n=3\s+100 ±1% n=3\s+\+0\.0%\s+1\.000\s+same within noise$/, out)
    assert_includes out, "req/s in 1 cell(s) compared: 1 same within noise."
  end

  def test_flags_a_clear_difference_and_fails_when_asked
    a = run_with("a", F.repetitions([197, 200, 203], **CELL))
    b = run_with("b", F.repetitions([78, 80, 82], **CELL))
    status, out, err = run_cli("compare", a, b, "--fail-if-slower", "5%")
    assert_equal 1, status
    assert_match(/req\/s\s+200 ±2% n=3\s+80.0 ±2% n=3\s+-60\.0%\s+<0\.001\s+slower$/, out)
    assert_equal "Slower: req/s is significantly lower by more than 5% in 1 cell(s): /hello puma x2:3 c=8 (-60.0%) " \
                 "(--fail-if-slower 5)\n", err
    status, out, = run_cli("compare", b, a)
    assert_equal 0, status, "without --fail-if-slower a difference is reported, not failed"
    assert_match(/\+150\.0%\s+<0\.001\s+faster$/, out)
  end

  def test_untestable_cells_and_cells_in_one_run
    a = run_with("a", F.repetitions([80], **CELL) + F.repetitions([5, 6], **CELL, concurrency: 32))
    b = run_with("b", F.repetitions([200, 210], **CELL))
    status, out, = run_cli("compare", a, b, "--fail-if-slower", "0")
    assert_equal 1, status, "a cell of A missing in B fails the gate (fails closed)"
    assert_match(/n<2, cannot test$/, out)
    assert_match(%r{Only in A \(not compared\):\n  /hello  puma x2:3  c=32\n}, out)
  end

  # Identical repetitions on both sides (a p99 on wrk's 1 ms buckets, a
  # count): Welch cannot test, and --fail-if-slower does not fire.
  def test_no_spread_in_either_run_cannot_be_tested
    a = run_with("a", F.repetitions([100, 100, 100], **CELL))
    b = run_with("b", F.repetitions([90, 90, 90], **CELL))
    status, out, err = run_cli("compare", a, b, "--fail-if-slower", "5")
    assert_equal 0, status, err
    assert_match(%r{^puma x2:3\s+8\s+req/s\s+100 ±0% n=3\s+90.0 ±0% n=3\s+-10\.0%\s+-\s+no variance: cannot test$}, out)
    assert_includes out, "req/s in 1 cell(s) compared: 1 no variance: cannot test."
  end

  def test_errors_are_one_line
    a = run_with("a", F.repetitions([1, 2], **CELL))
    status, _, err = run_cli("compare", a)
    assert_equal [2, "Error: give two run directories: rackbench compare RUN_A RUN_B\n"], [status, err]
    status, _, err = run_cli("compare", a, a, "--fail-if-slower", "lots")
    assert_equal 2, status
    assert_match(/\AError: --fail-if-slower takes a percentage of 0 or more, like 5 or 2.5; got "lots"\n\z/, err)
    status, _, err = run_cli("compare", a, File.join(tmpdir, "missing"))
    assert_equal 1, status
    assert_match(/\AError: .*missing is not a rackbench run directory/, err)
  end

  def test_the_gate_fails_closed_on_a_run_without_trials
    a = run_with("a", F.repetitions([98, 100, 102], **CELL))
    b = run_with("b", [])
    status, _out, err = run_cli("compare", a, b, "--fail-if-slower", "5")
    assert_equal 1, status
    assert_match(/\AError: no cell .* is in both runs, so nothing was compared: .*b has no trials/, err)
    status, = run_cli("compare", b, a, "--fail-if-slower", "5")
    assert_equal 1, status, "an empty baseline fails the gate too"
  end

  def test_the_gate_fails_closed_on_missing_cells
    a = run_with("a", F.repetitions([98, 100, 102], **CELL) + F.repetitions([50, 51, 49], **CELL, concurrency: 16))
    b = run_with("b", F.repetitions([99, 101, 100], **CELL))
    status, _out, err = run_cli("compare", a, b, "--fail-if-slower", "5")
    assert_equal 1, status
    assert_match(%r{lacks 1 cell\(s\) of .*: /hello puma x2:3 c=16}, err)
  end
end
