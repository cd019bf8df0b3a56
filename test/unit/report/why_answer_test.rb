# frozen_string_literal: true

require "test_helper"
require "rackbench/report/answer_text"
require_relative "run_fixture"

# run --profile: under a decided pair, the terminal's answer says where the
# time went (Stats::AttributionText), from the run's attributions.
class WhyAnswerTest < Minitest::Test
  F = Rackbench::RunFixture
  S = Rackbench::Stats
  NOISE = [0.01, -0.01, 0.005, -0.005, 0.0, 0.008].freeze

  def trials
    F.repetitions(NOISE.map { |e| 1000.0 * (1 + e) }, little: true, setup: "main@aaaaaaa", endpoint: "/fib", concurrency: 2) +
      F.repetitions(NOISE.map { |e| 910.0 * (1 - e) }, little: true, setup: "HEAD@bbbbbbb", endpoint: "/fib", concurrency: 2)
  end

  def profile(setup, round, fib)
    frames = [["Fib.fib", "app/fib.rb", (fib * 100).round, 0], ["App#call", "app.rb", 100, 0]]
    { "setup" => setup, "endpoint" => "/fib", "concurrency" => 2, "repetition" => round, "requests" => 1000,
      "processes" => [{ "samples" => frames.sum { |f| f[2] }, "cpu_s" => fib + 1.0, "alloc" => 1000, "frames" => frames }] }
  end

  def test_a_decided_pair_says_which_method_grew
    profiles = NOISE.each_with_index.flat_map do |e, i|
      [profile("main@aaaaaaa", i + 1, 9.0 + e), profile("HEAD@bbbbbbb", i + 1, 10.0 - e)]
    end
    decisions = S::Decisions.for_run(trials)
    times = S::FrameTimes.of(profiles)
    attributions = decisions.entries.select { |e| e.metric == "rps" && e.decided? }
                            .to_h { |e| [[e.endpoint, e.level, e.a, e.b], S::Attribution.for(e, times)] }
    refute_empty attributions
    io = StringIO.new
    Rackbench::Report::AnswerText.render(trials, decisions, io, attributions: attributions)
    lines = io.string.lines(chomp: true)
    assert_match(%r{\A  /fib c=2: main@aaaaaaa 1\d\d\d req/s vs HEAD@bbbbbbb 9\d\d: req/s slower by}, lines[1])
    assert_match(%r{\A    HEAD@bbbbbbb slower by 9\.\d% \(95% CI [\d.]+-[\d.]+%\): \+0\.99\d ms per request in Fib\.fib \(app/fib\.rb\) \(\+0\.9\d+ to \+1\.0\d+\); nothing else},
                 lines[2])
    assert_match(/\A    profiled CPU \+0\.99\d ms per request .* consistent\z/, lines[3])
  end
end
