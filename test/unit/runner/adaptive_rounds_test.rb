# frozen_string_literal: true

require "test_helper"
require "rackbench/runner"
require_relative "../report/run_fixture"

# Issue 42, item 6.4: when run --decide stops with pairs still undecided,
# its warning is one line a first screen can hold (it was 4,792 characters
# on a real run, every pair's words): the count, the widest one or two, and
# where the full list is (the Decisions under the tables, rackbench report).
class AdaptiveRoundsTest < Minitest::Test
  F = Rackbench::RunFixture
  Store = Struct.new(:trials, :path)

  class Warnings
    attr_reader :warnings, :notes

    def initialize
      @warnings = []
      @notes = []
    end

    def warning(text) = @warnings << text
    def note(text) = @notes << text
  end

  # 12 setups alike but for a spread of 10-20% a round: 11 neighbouring
  # pairs per endpoint, 33 in all, none decided in 3 rounds.
  def trials
    rng = Random.new(42)
    %w[/a /b /c].flat_map do |endpoint|
      (1..12).flat_map do |i|
        values = Array.new(3) { 1000 * (1 + 0.002 * i) * Math.exp(0.2 * (rng.rand - 0.5)) }
        F.repetitions(values, little: true, setup: "puma x#{i}:1", endpoint: endpoint, concurrency: 8)
      end
    end
  end

  def test_the_undecided_pairs_are_counted_not_listed
    listener = Warnings.new
    config = { decide: true, race: false, repeat: 3, max_rounds: 3, margin: 0.05, decide_time: 900.0 }
    plan = Struct.new(:config, :setups).new(config, Array.new(12))
    store = Store.new(trials, "/runs/r1")
    Rackbench::Runner::AdaptiveRounds.new(plan: plan, store: store, listener: listener, started: Rackbench::Clock.now).call { flunk }
    line = listener.warnings.fetch(0)
    assert_equal 1, listener.warnings.size
    assert_operator line.size, :<=, 300, line
    assert_match(/\A--decide stopped after 3 rounds \(--max-rounds 3 reached\) with 33 pairs still undecided; the widest: /, line)
    assert_match(%r{; all are in the Decisions of rackbench report /runs/r1\z}, line)
    refute_includes line, "\n"
  end
end
