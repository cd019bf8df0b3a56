# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/cli/run_report"
require "rackbench/store/run_dir"
require "rackbench/stats/gate_where"
require_relative "../report/run_fixture"

# Issue 43, item 5: run --ref ... --fail-if-slower P --profile says where
# in the gate's sentence (stderr and the job summary): the top changes of
# each slower (or undecided, leaning slower, where the answer attributed
# it) cell, from the run's attributions; without --profile it is unchanged.
class GateWhereTest < Minitest::Test
  F = Rackbench::RunFixture
  S = Rackbench::Stats
  BASE = "main@aaaaaaa"
  HEAD = "HEAD@bbbbbbb"
  NOISE = [0.01, -0.01, 0.005, -0.005, 0.0, 0.008].freeze
  FIB = %r{: \+0\.99\d ms per request in Fib\.fib \(app/fib\.rb\) \(\+0\.9\d+ to \+1\.0\d+\)\)}

  def profile(setup, round, fib)
    frames = [["Fib.fib", "app/fib.rb", (fib * 100).round, 0], ["App#call", "app.rb", 100, 0]]
    { "key" => "#{setup}|/fib|2|#{round}", "setup" => setup, "endpoint" => "/fib", "concurrency" => 2, "repetition" => round,
      "requests" => 1000, "processes" => [{ "samples" => frames.sum { |f| f[2] }, "cpu_s" => fib + 1.0, "alloc" => 1000, "frames" => frames }] }
  end

  # A stored run of BASE against HEAD at /fib c=2, HEAD's req/s head_share of
  # BASE's; with profiles, Fib.fib's CPU per round base_fib/head_fib (+- noise).
  def stored(head_share: 0.91, fib: [9.0, 10.0])
    dir = File.join(tmpdir, "run")
    trials = F.repetitions(NOISE.map { |e| 1000.0 * (1 + e) }, little: true, setup: BASE, endpoint: "/fib", concurrency: 2) +
             F.repetitions(NOISE.map { |e| 1000.0 * head_share * (1 - e) }, little: true, setup: HEAD, endpoint: "/fib", concurrency: 2)
    F.write(dir, trials: trials, setups: [F.ok_setup(BASE), F.ok_setup(HEAD)])
    lines = NOISE.each_with_index.flat_map { |e, i| [profile(BASE, i + 1, fib[0] + e), profile(HEAD, i + 1, fib[1] - e)] }
    File.write(File.join(dir, "profiles.jsonl"), lines.map { |l| "#{JSON.generate(l)}\n" }.join)
    dir
  end

  # [status, the gate's sentence on stderr, the job summary's text].
  def gate(dir, percent: 5, profile: true)
    summary = File.join(tmpdir, "summary-#{profile}-#{percent}.md")
    err = StringIO.new
    plan = Struct.new(:config, :ref_groups).new({ fail_if_slower: percent, margin: 0.05, profile: profile }, [[BASE, [BASE, HEAD]]])
    status = Rackbench::CLI::RunReport.new(out: StringIO.new, err: err, env: { "GITHUB_STEP_SUMMARY" => summary })
                                      .call(Rackbench::Store::RunDir.open(dir), plan)
    [status, err.string.lines.grep(/\A(Slower|Undecided|Passed|Gate failed): /).first.to_s.chomp, File.read(summary)]
  end

  def test_a_slower_cell_names_the_method_that_grew_in_the_sentence_and_the_summary
    status, line, summary = gate(stored)
    assert_equal 1, status
    assert_match(%r{\ASlower: #{HEAD} is decided slower than #{BASE} by more than 5% in 1 cell\(s\): /fib c=2 #{HEAD} against #{BASE} }, line)
    assert_match(/\(req\/s slower by 9\.\d% \(95% CI [\d.]+-[\d.]+%\)#{FIB} \(--fail-if-slower 5, exit 1\)\z/, line)
    assert_includes summary, "**#{line}**\n\n"
  end

  def test_without_profile_the_sentence_is_the_one_before_byte_for_byte
    dir = stored
    _, with, = gate(dir)
    status, without, summary = gate(dir, profile: false)
    assert_equal 1, status
    refute_match(/ms per request/, without)
    assert_equal with.sub(FIB, ")"), without
    assert_includes summary, "**#{without}**\n\n"
  end

  def test_a_slower_cell_whose_methods_did_not_change_says_so
    _, line, = gate(stored(fib: [9.0, 9.0]))
    assert_match(/\(req\/s slower by 9\.\d% \(95% CI [\d.]+-[\d.]+%\): no method's change is beyond noise\) \(--fail-if-slower 5, exit 1\)\z/, line)
  end

  def test_an_undecided_cell_leaning_slower_names_the_answers_attribution
    status, line, = gate(stored, percent: 9)
    assert_equal 3, status
    assert_match(/\AUndecided: 1 cell\(s\) could be slower than #{BASE} by more than 9% .*\(req\/s slower, by [\d.]+-[\d.]+% \(95% CI; /, line)
    assert_match(/beyond \+-9% undecided, [^)]*\)#{FIB}: add rounds \(--decide\) or gate on a larger slowdown; /, line)
  end

  def test_a_passed_cell_says_nothing_more
    dir = stored(head_share: 0.99, fib: [9.0, 9.1])
    _, with, = gate(dir)
    _, without, = gate(dir, profile: false)
    assert_match(/\APassed: /, with)
    assert_equal without, with
  end

  def test_a_slower_cell_the_answer_did_not_attribute_gets_its_own
    data = Rackbench::Report::Dataset.from_store(Rackbench::Store::RunDir.open(stored))
    found = S::RefGate.new(data.trials.map(&:to_h), [[BASE, [BASE, HEAD]]], margin: 0.05)
    where = S::GateWhere.new(found, attributions: {}, times: -> { data.frame_times })
    assert_match(%r{\A\+0\.99\d ms per request in Fib\.fib \(app/fib\.rb\) }, where.text(found.slower.first))
  end
end
