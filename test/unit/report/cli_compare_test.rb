# frozen_string_literal: true

require "test_helper"
require "fileutils"
require_relative "run_fixture"

# rackbench compare on stored runs of known figures: decisions unpaired
# (Welch's t on the logs) with a margin and two families, the gate's three exits,
# and the CPU-speed calibration notes.
class CliCompareTest < Minitest::Test
  F = Rackbench::RunFixture
  CELL = { setup: "puma x2:3", endpoint: "/hello", concurrency: 8 }.freeze

  def run_with(name, trials, **opts)
    F.write(File.join(tmpdir, name), trials: trials, **opts)
  end

  # Another run directory holding what dir holds (compare refuses one run twice).
  def copy(dir)
    File.join(tmpdir, "copy").tap { |to| FileUtils.cp_r(dir, to) }
  end

  def rps_line(out)
    out.lines.find { |l| l.include?("req/s") && l.include?("n=") }.to_s
  end

  def test_identical_runs_are_never_faster_or_slower
    noisy = [980, 1100, 1020]
    [[98, 100, 102], noisy, [700, 1000, 1300]].each do |values|
      a = run_with("a", F.repetitions(values, **CELL))
      b = run_with("b", F.repetitions(values.reverse, **CELL))
      status, out, err = run_cli("compare", a, b)
      assert_equal 0, status, err
      refute_match(/faster|slower/, out.lines.grep(/n=/).join, out)
    end
    a = run_with("a", F.repetitions([98, 100, 102], **CELL))
    _, out, = run_cli("compare", a, copy(a))
    assert_match(%r{^puma x2:3\s+8\s+req/s\s+100 ±2% n=3\s+100 ±2% n=3\s+\+0\.0%\s+equivalent within \+-5% \(95% CI -4\.4% to \+4\.6%\)$}, out,
                 "equivalent only where the interval is inside the margin")
    a = run_with("a", F.repetitions(noisy, **CELL))
    _, out, = run_cli("compare", a, copy(a))
    assert_match(/req\/s .* undecided \(95% CI -12% to \+14%, about 11 more repetitions\)$/, rps_line(out),
                 "an interval wider than the margin is undecided, not \"the same\"")
    assert_includes out, "req/s in 1 cell(s) compared: 1 undecided."
    refute_match(/same within noise/, out)
  end

  # Issue 46, C10: one run given as both (the same path, another spelling
  # of it, a link to it) is refused in one line, not compared with itself.
  def test_one_run_given_twice_is_refused
    a = run_with("a", F.repetitions([98, 100, 102], **CELL))
    link = File.join(tmpdir, "link")
    File.symlink(a, link)
    [a, File.join(a, "..", "a"), "#{a}/", link].each do |again|
      status, out, err = run_cli("compare", a, again)
      assert_equal [2, ""], [status, out], again
      assert_equal "Error: RUN_A #{a} and RUN_B #{File.expand_path(again)} are one run directory: a run compared with " \
                   "itself says nothing about a change; give two runs (rackbench report #{a} shows one run's spread)\n", err
    end
  end

  def test_the_header_states_method_margin_and_family
    a = run_with("a", F.repetitions([98, 100, 102], **CELL))
    _, out, = run_cli("compare", a, copy(a))
    assert_includes out, "Method: two runs made at different times cannot be paired (the machine's speed moves between them): " \
                         "each cell's repetitions in A and in B are compared unpaired: Welch's t on the log values (95%); " \
                         "change = B/A - 1 from the geometric means.\n"
    assert_includes out, "beyond +-5% (the margin: the default; --margin sets it), equivalent when it lies within +-5% " \
                         "(two one-sided tests), undecided otherwise"
    assert_includes out, "two families, each at 5% over every decision in it, decided or not (Bonferroni): req/s the primary, p99 and PSS the secondary, 2 here; each interval is its family's 95% one."
  end

  def test_a_clear_40_percent_difference_is_decided_both_ways
    a = run_with("a", F.repetitions([980, 1000, 1020], **CELL))
    b = run_with("b", F.repetitions([590, 600, 610], **CELL))
    status, out, err = run_cli("compare", a, b)
    assert_equal 0, status, "without --fail-if-slower a difference is reported, not failed: #{err}"
    assert_match(%r{req/s\s+1000 ±2% n=3\s+600 ±2% n=3\s+-40\.0%\s+slower by 40% \(95% CI 37-42%\)$}, rps_line(out))
    _, out, = run_cli("compare", b, a)
    assert_match(/\+66\.7%\s+faster: B\/A 1\.67x \(95% CI 1\.6x-1\.74x\)$/, rps_line(out))
    assert_includes out, "req/s in 1 cell(s) compared: 1 faster."
  end

  def test_a_decided_slowdown_fails_the_gate
    a = run_with("a", F.repetitions([980, 1000, 1020], **CELL))
    b = run_with("b", F.repetitions([590, 600, 610], **CELL))
    status, _out, err = run_cli("compare", a, b, "--fail-if-slower", "5%")
    assert_equal 1, status
    assert_equal "Slower: #{b} is decided slower than #{a} by more than 5% in 1 cell(s): /hello c=8 puma x2:3 " \
                 "(req/s slower by 40% (95% CI 37-42%)) (--fail-if-slower 5, exit 1)\n", err
    status, _out, err = run_cli("compare", a, b, "--fail-if-slower", "45")
    assert_equal 0, status, "40% slower is decided not slower by more than 45%: #{err}"
    assert_equal "Passed: #{b} is not slower than #{a} by more than 45% in 1 cell(s): /hello c=8 puma x2:3 " \
                 "(req/s equivalent within +-45% (95% CI -42% to -37%)) (--fail-if-slower 45)\n", err
  end

  # A wrk run against an ab run: the engines would be compared, not the
  # change; refused in one line, also by the gate (exit 1, never a pass).
  def test_runs_measured_by_different_engines_are_refused
    a = run_with("a", F.repetitions([980, 1000, 1020], **CELL))
    b = run_with("b", F.repetitions([980, 1000, 1020], **CELL).map { |t| t.merge("engine" => "ab") })
    [[], ["--fail-if-slower", "5"]].each do |gate|
      status, out, err = run_cli("compare", a, b, *gate)
      assert_equal [1, ""], [status, out]
      assert_equal "Error: RUN_A #{a} was measured with wrk and RUN_B #{b} with ab: load engines measure differently, so a " \
                   "difference would be theirs, not the change's; measure both runs with the same --engine\n", err
    end
  end

  def test_a_gate_on_an_undecided_pair_exits_3_with_its_own_sentence
    a = run_with("a", F.repetitions([900, 1100, 1000], **CELL))
    b = run_with("b", F.repetitions([1040, 850, 970], **CELL))
    status, out, err = run_cli("compare", a, b, "--fail-if-slower", "5")
    assert_equal 3, status, out
    assert_match(%r{\AUndecided: 1 cell\(s\) could be slower than #{a} by more than 5% \(the family's 95% interval of req/s B/A reaches below -5%\): /hello c=8 puma x2:3 \(req/s undecided \(95% CI -\d+% to \+\d+%, about \d+ more repetitions\)\): add repetitions \(about \d+ more in each run, -r\) or gate on a larger slowdown; --fail-if-slower 5 neither passes nor fails \(exit 3\)\n\z}, err)
    status, _out, err = run_cli("compare", a, b, "--fail-if-slower", "60")
    assert_equal 0, status, "the interval does not reach -60%: #{err}"
  end

  # --fail-if-slower 0 decides at the comparison's margin: --margin, else
  # RUN_A's stored one, else 5%.
  def test_the_margin_comes_from_the_option_or_run_a
    a = run_with("a", F.repetitions([98, 100, 102], **CELL))
    b = run_with("b", F.repetitions([91, 92, 93], **CELL))
    status, out, = run_cli("compare", a, b)
    assert_equal 0, status
    # R: exp(t.test(log(b), log(a))$conf.int) = 0.8830-0.9588: slower for
    # certain, beyond 5% not yet.
    assert_match(/-8\.0%\s+slower, by 4\.1-12% \(95% CI; beyond \+-5% undecided, about 2 more repetitions\)$/, rps_line(out))
    _, out, = run_cli("compare", a, b, "--margin", "3")
    assert_match(/-8\.0%\s+slower by 8% \(95% CI 4\.1-12%\)$/, rps_line(out))
    assert_includes out, "(the margin: --margin; --margin sets it)"
    _, out, = run_cli("compare", a, b, "--margin", "20")
    assert_match(/-8\.0%\s+equivalent within \+-20% \(95% CI -12% to -4\.1%\)$/, rps_line(out))

    # --fail-if-slower 0 gates at the comparison's margin.
    assert_equal [1, 0, 3], [%w[--margin 3], %w[--margin 20], []].map { |m| run_cli("compare", a, b, *m, "--fail-if-slower", "0").first }

    meta = F::META.merge("config" => { "margin" => 0.2 })
    a20 = run_with("a20", F.repetitions([98, 100, 102], **CELL), meta: meta)
    _, out, = run_cli("compare", a20, b)
    assert_includes out, "beyond +-20% (the margin: RUN_A's; --margin sets it)"
    assert_match(/equivalent within \+-20%/, rps_line(out))
  end

  def test_too_few_repetitions_cannot_be_decided_and_do_not_pass_the_gate
    a = run_with("a", F.repetitions([80], **CELL))
    b = run_with("b", F.repetitions([200, 210], **CELL))
    status, out, err = run_cli("compare", a, b, "--fail-if-slower", "5")
    assert_match(/\+156\.2%\s+cannot decide: n<2 \(run -r 3\)$/, rps_line(out))
    assert_includes out, "req/s in 1 cell(s) compared: 1 cannot decide."
    assert_equal 3, status
    assert_match(%r{\AUndecided: 1 cell\(s\) cannot be decided, with fewer than 2 repetitions of both: /hello c=8 puma x2:3: add repetitions \(run -r 3 or more\) or gate on a larger slowdown; --fail-if-slower 5 neither passes nor fails \(exit 3\)\n\z}, err)
  end

  def test_cells_in_one_run_fail_the_gate_closed
    a = run_with("a", F.repetitions([98, 100, 102], **CELL) + F.repetitions([50, 51, 49], **CELL, concurrency: 16))
    b = run_with("b", F.repetitions([99, 101, 100], **CELL))
    status, out, err = run_cli("compare", a, b, "--fail-if-slower", "5")
    assert_equal 1, status
    assert_match(%r{Only in A \(not compared\):\n  /hello  puma x2:3  c=16\n}, out)
    assert_equal "Gate failed: #{b} lacks 1 cell(s) of #{a}: /hello c=16 puma x2:3 (re-run, or compare without the gate); " \
                 "--fail-if-slower 5 cannot pass on missing measurements\n", err
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

  def test_a_note_when_the_runs_cpu_speeds_differ_or_drift
    trials = F.repetitions([98, 100, 102], **CELL)
    a = run_with("a", trials, calibration: { "start" => 450.0, "end" => 446.0 })
    b = run_with("b", trials, calibration: { "start" => 380.0, "end" => 376.0 })
    _, out, = run_cli("compare", a, b)
    assert_includes out, "Note: the machine ran a fixed Ruby workload 16% slower in B than in A (CPU-speed calibration, " \
                         "iterations per CPU-second: A 448, B 378), more than the margin and the readings' own spread: a difference may come from the " \
                         "machine, not the servers; setups measured in one run are paired by its rounds.\n"
    refute_match(/moved by/, out)

    drifted = run_with("drifted", trials, calibration: { "start" => 460.0, "end" => 410.0 })
    _, out, = run_cli("compare", a, drifted)
    assert_includes out, "Note: B's CPU speed moved by 12% while it ran (CPU-speed calibration, iterations per CPU-second: " \
                         "start 460, end 410): more than the +-5% margin and beyond the readings' own spread, so its cells may mix fast and slow periods.\n"
    refute_match(/fixed Ruby workload/, out, "the runs' means, 448 and 435, are 2.9% apart")
  end

  def test_close_speeds_and_old_runs_without_calibration_say_nothing
    trials = F.repetitions([98, 100, 102], **CELL)
    a = run_with("a", trials, calibration: { "start" => 450.0, "end" => 446.0 })
    close = run_with("close", trials, calibration: { "start" => 440.0, "end" => 436.0 })
    old = run_with("old", trials)
    [[a, close], [a, old], [old, a]].each do |x, y|
      _, out, = run_cli("compare", x, y)
      refute_match(/^Note:/, out)
    end
    _, out, = run_cli("compare", a, close, "--margin", "0.5")
    assert_match(/^Note: A's CPU speed moved by 0\.9% while it ran/, out, "the notes follow the margin")
  end

  # The calibration's own samples vary (about 11% under load here): a
  # difference their spread covers is not said, though beyond the margin.
  def test_speed_notes_wait_for_the_readings_own_spread
    trials = F.repetitions([98, 100, 102], **CELL)
    noisy = { "start" => [450.0, [400.0, 450.0, 480.0]], "end" => [410.0, [390.0, 410.0, 455.0]] }
    a = run_with("a", trials, calibration: noisy)
    b = run_with("b", trials, calibration: { "start" => [415.0, [380.0, 415.0, 430.0]], "end" => [412.0, [400.0, 412.0, 420.0]] })
    _, out, = run_cli("compare", a, b)
    refute_match(/^Note:/, out, "9.8% apart inside A, 4.2% between the runs, but the samples overlap")
    apart = run_with("apart", trials, calibration: { "start" => [480.0, [470.0, 480.0, 490.0]], "end" => [400.0, [395.0, 400.0, 405.0]] })
    _, out, = run_cli("compare", a, apart)
    assert_match(/^Note: B's CPU speed moved by 20% while it ran/, out, "samples 470-490 against 395-405 do not overlap")
  end

  # Server and engine versions that differ between the runs are named.
  def test_a_note_names_server_and_engine_versions_that_differ
    a = run_with("a", F.repetitions([98, 100, 102], **CELL))
    meta = F::META.merge("servers" => { "puma" => "7.2.0", "unicorn" => "6.1.0" }, "engine" => { "name" => "wrk", "version" => "4.2.0" })
    b = run_with("b", F.repetitions([98, 100, 102], **CELL), meta: meta)
    _status, out, = run_cli("compare", a, b)
    assert_match(/^Note: versions differ: puma 8.0.2 in A, 7.2.0 in B; load engine wrk 4.1.0 in A, wrk 4.2.0 in B; a difference may come from the version/, out)
    _status, same, = run_cli("compare", a, copy(a))
    refute_match(/versions differ/, same)
  end

  def test_errors_are_one_line
    a = run_with("a", F.repetitions([1, 2], **CELL))
    status, _, err = run_cli("compare", a)
    assert_equal [2, "Error: give two run directories: rackbench compare RUN_A RUN_B\n"], [status, err]
    %w[lots 100 -1].each do |bad|
      status, _, err = run_cli("compare", a, a, "--fail-if-slower", bad)
      assert_equal 2, status
      assert_equal "Error: --fail-if-slower takes a percentage from 0 up to (not including) 100, like 5 or 2.5 (0: the --margin); " \
                   "got #{bad.inspect}\n", err
    end
    status, _, err = run_cli("compare", a, a, "--margin", "0")
    assert_equal [2, "Error: --margin must be a percentage above 0 and below 100, e.g. 5 for +-5% (got 0%)\n"], [status, err]
    status, _, err = run_cli("compare", a, File.join(tmpdir, "missing"))
    assert_equal 1, status
    assert_match(/\AError: .*missing is not a rackbench run directory/, err)
  end

  def test_help_names_the_outcomes_and_the_exit_statuses
    status, out, = run_cli("compare", "--help")
    assert_equal 0, status
    refute_match(/same within noise/, out)
    assert_match(/equivalent within \+-margin/, out)
    assert_match(/3 the gate could not\ndecide/, out)
  end
end
