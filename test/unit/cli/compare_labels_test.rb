# frozen_string_literal: true

require "test_helper"
require "shellwords"
require_relative "../report/run_fixture"

# rackbench compare across differently labelled setups, on stored runs: no
# cell in common fails (exit 1) naming each run's setups; labels that differ
# only in the runtime get the --pair to add; a paired row names both setups.
class CompareLabelsTest < Minitest::Test
  F = Rackbench::RunFixture

  def run_with(name, cells)
    trials = cells.flat_map do |setup, rps, at = {}|
      F.repetitions(rps, setup: setup, endpoint: "/hello", concurrency: 8, **at)
    end
    F.write(File.join(@dir, name), trials: trials)
  end

  def setup
    @dir = tmpdir
  end

  def test_no_cell_in_common_fails_with_or_without_the_gate
    a = run_with("a", [["puma x2:3", [98, 100, 102]]])
    b = run_with("b", [["unicorn x2", [60, 61, 59]], ["thin", [40, 41, 39]]])
    [[], %w[--fail-if-slower 5]].each do |gate|
      status, out, err = run_cli("compare", a, b, *gate)
      assert_equal 1, status, "#{gate}: #{out}"
      assert_equal "Error: no cell (endpoint, setup, concurrency) is in both runs, so nothing was compared: " \
                   "RUN_A #{a} has setup \"puma x2:3\"; RUN_B #{b} has setups \"unicorn x2\", \"thin\"; " \
                   "to compare setups with different labels add --pair \"SETUP IN RUN_A=SETUP IN RUN_B\"\n", err
      refute_match(/req\/s/, out, "nothing compared, no table")
    end
  end

  def test_a_runtime_only_difference_gets_the_pairs_to_paste_and_they_work
    a = run_with("a", [["puma x2:5 on yjit", [197, 200, 203]], ["unicorn x2 on yjit", [150, 151, 149]]])
    b = run_with("b", [["puma x2:5", [98, 100, 102]], ["unicorn x2 on mri", [150, 152, 148]]])
    status, _out, err = run_cli("compare", a, b)
    assert_equal 1, status
    pairs = '--pair "puma x2:5 on yjit=puma x2:5" --pair "unicorn x2 on yjit=unicorn x2 on mri"'
    assert_match(/\AError: no cell .* is in both runs.*; setups that are the same configuration but for the runtime are not paired by themselves; to compare them add #{Regexp.escape(pairs)}\n\z/,
                 err)

    # Followed to the letter: the arguments pasted after the two runs.
    status, out, err = run_cli("compare", a, b, *Shellwords.split(err[/add (--pair .*)$/, 1]))
    assert_equal 0, status, err
    # Two req/s decisions in the family: each interval at 1 - 0.05/2 (R:
    # exp(t.test(log(b), log(a), conf.level = 0.975)$conf.int) gives
    # 0.4744-0.5269 and 0.9641-1.0371).
    assert_match(%r{^puma x2:5 on yjit → puma x2:5\s+8\s+req/s\s+200 ±2% n=3\s+100 ±2% n=3\s+-50\.0%\s+slower: B/A 0\.5x \(95% CI 0\.474x-0\.527x\)$}, out)
    assert_match(%r{^unicorn x2 on yjit → unicorn x2 on mri\s+8\s+req/s\s+150 ±1% n=3\s+150 ±1% n=3\s+-0\.0%\s+equivalent within \+-5% \(95% CI -3\.6% to \+3\.7%\)$},
                 out)
    assert_includes out, "req/s in 2 cell(s) compared: 1 slower, 1 equivalent."
  end

  # Labels that parse to different configurations are not proposed, even
  # when the runtime differs too; a setup with two candidates is not either.
  def test_only_unambiguous_runtime_only_pairs_are_proposed
    a = run_with("a", [["puma x2:5 on yjit", [1, 2]], ["unicorn x4 on yjit", [1, 2]]])
    b = run_with("b", [["puma x2:5", [1, 2]], ["puma x2:5 on mri", [1, 2]], ["unicorn x2", [1, 2]]])
    _, _, err = run_cli("compare", a, b)
    assert_match(/add --pair "SETUP IN RUN_A=SETUP IN RUN_B"\n\z/, err)

    b = run_with("b2", [["puma x2", [1, 2]], ["unicorn x2", [1, 2]]])
    _, _, err = run_cli("compare", a, b)
    assert_match(/add --pair "puma x2:5 on yjit=puma x2"\n\z/, err, "puma's x2 is x2:5; unicorn x4 is not x2")
  end

  def test_a_paired_row_and_the_gate_name_both_setups
    a = run_with("a", [["puma x2:5", [197, 200, 203]], ["thin", [50, 51, 49]]])
    b = run_with("b", [["puma x2:5 on yjit", [78, 80, 82]], ["thin", [50, 50, 51]]])
    status, out, err = run_cli("compare", a, b, "--pair", "puma x2:5=puma  x2:5 on yjit", "--fail-if-slower", "5")
    assert_equal 1, status
    assert_includes out, "Pairing RUN_B's setup \"puma x2:5 on yjit\" with RUN_A's \"puma x2:5\".\n"
    # R, Welch at 1 - 0.05/2 on the logs (two req/s decisions): 0.3744-0.4273.
    assert_match(%r{^puma x2:5 → puma x2:5 on yjit\s+8\s+req/s\s+200 ±2% n=3\s+80.0 ±2% n=3\s+-60\.0%\s+slower: B/A 0\.4x \(95% CI 0\.374x-0\.427x\)$}, out)
    assert_match(%r{^thin\s+8\s+req/s\s}, out, "an unpaired row keeps its one label")
    assert_equal "Slower: #{b} is decided slower than #{a} by more than 5% in 1 cell(s): /hello c=8 puma x2:5 on yjit " \
                 "against puma x2:5 (req/s slower: B/A 0.4x (95% CI 0.374x-0.427x)) (--fail-if-slower 5, exit 1)\n", err
  end

  def test_the_automatic_pair_of_one_setup_each_names_both
    a = run_with("a", [["puma x2:5", [98, 100, 102]]])
    b = run_with("b", [["puma x2:5 on yjit", [101, 99, 100]]])
    status, out, err = run_cli("compare", a, b)
    assert_equal 0, status, err
    assert_match(%r{^puma x2:5 → puma x2:5 on yjit\s+8\s+req/s\s+100 ±2% n=3\s+100 ±1% n=3\s+\+0\.0%\s+equivalent within \+-5% \(95% CI -4\.1% to \+4\.3%\)$}, out)
  end

  # Some cells meet, others are in one run only under runtime-only labels:
  # compared as usual, with the pair proposed under the one-run lists.
  def test_runtime_only_setups_beside_shared_ones_are_proposed_below_the_table
    a = run_with("a", [["thin", [50, 51, 49]], ["puma x2:5 on yjit", [1, 2]]])
    b = run_with("b", [["thin", [50, 50, 51]], ["puma x2:5", [1, 2]]])
    status, out, err = run_cli("compare", a, b)
    assert_equal 0, status, err
    assert_includes out, "Only in A (not compared):\n  /hello  puma x2:5 on yjit  c=8\n"
    assert_includes out, "Only in B (not compared):\n  /hello  puma x2:5  c=8\n"
    assert_includes out, "\nTo compare the setups above that are the same configuration but for the runtime, add --pair \"puma x2:5 on yjit=puma x2:5\"\n"
  end

  def test_same_setups_at_other_endpoints_name_what_differs
    a = run_with("a", [["puma x2:3", [1, 2], { endpoint: "/hello" }]])
    b = run_with("b", [["puma x2:3", [1, 2], { endpoint: "/pause/0.05", concurrency: 16 }]])
    status, _, err = run_cli("compare", a, b)
    assert_equal 1, status
    assert_match(/; "puma x2:3" is in both, but never at the same endpoint and load level \(endpoints A: \/hello, B: \/pause\/0.05; load levels A: 8, B: 16\); measure the same endpoints and levels in both\n\z/,
                 err)
  end

  def test_a_run_without_trials_has_no_cell_in_common
    a = run_with("a", [["puma x2:3", [98, 100, 102]]])
    b = run_with("b", [])
    [[a, b], [b, a]].each do |x, y|
      status, _, err = run_cli("compare", x, y, "--fail-if-slower", "5")
      assert_equal 1, status
      assert_match(/\AError: no cell .* in both runs, so nothing was compared: .* #{Regexp.escape(b)} has no trials.*; both need trials/, err)
    end
  end

  def test_a_pair_naming_no_setup_of_its_run_is_bad_input
    a = run_with("a", [["puma x2:5", [1, 2]], ["thin", [1, 2]]])
    b = run_with("b", [["puma x2:5 on yjit", [1, 2]], ["thin", [1, 2]]])
    status, out, err = run_cli("compare", a, b, "--pair", "puma x2:5=puma x2:5 on yjt")
    assert_equal [2, ""], [status, out]
    assert_equal "Error: --pair \"puma x2:5=puma x2:5 on yjt\": RUN_B has no setup \"puma x2:5 on yjt\" " \
                 "(did you mean \"puma x2:5 on yjit\"?); its setups: \"puma x2:5 on yjit\", \"thin\"\n", err
    status, _, err = run_cli("compare", a, b, "--pair", "thin=puma x2:5 on yjit")
    assert_equal 2, status
    assert_equal "Error: --pair: RUN_B's setups \"puma x2:5 on yjit\", \"thin\" would all be compared with RUN_A's " \
                 "\"thin\"; pair each setup of RUN_B with a different one\n", err
    status, _, err = run_cli("compare", a, b, "--pair", "thin=thin", "--pair", "puma x2:5=thin")
    assert_equal [2, "Error: --pair: RUN_B's setup \"thin\" is paired twice; give one --pair for it\n"], [status, err]
  end
end
