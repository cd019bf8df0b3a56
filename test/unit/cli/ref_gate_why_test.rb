# frozen_string_literal: true

require "test_helper"
require "support/ref_gate_trials"
require "rackbench/stats/ref_gate"
require "rackbench/cli/ref_gate"

# Issue 42, item 6.2: an undecided gate of run --ref ... --decide said "add
# rounds (--decide)" to a run that had --decide. It says what ran out
# (--max-rounds, --time-budget), the per-round spread of HEAD/BASE behind
# it, and what would decide; without --decide, the old advice stands.
class RefGateWhyTest < Minitest::Test
  include Rackbench::RefGateTrials
  GROUPS = Rackbench::RefGateTrials::GROUPS
  BASE = [400, 300, 450, 380, 420, 310].freeze
  HEAD = [380, 420, 310, 400, 300, 450].freeze

  def sentence(config)
    found = trials(BASE, HEAD)
    looks = Rackbench::Stats::Looks.for_config(config)
    gate = Rackbench::Stats::RefGate.new(found, GROUPS, margin: 0.05, looks: looks)
    assert_equal 3, gate.status
    stop = Rackbench::CLI::RefGate.decide_stop(found, config)
    Rackbench::CLI::RefGate.new(gate, percent: 5, share: 0.05, decide_stop: stop).sentence
  end

  def config(**more)
    { decide: true, repeat: 3, max_rounds: 6, margin: 0.05, decide_time: 900.0, duration: 2.0, cpus: nil }.merge(more)
  end

  def test_max_rounds_ran_out
    text = sentence(config)
    refute_match(/add rounds \(--decide\)/, text)
    assert_match(%r{: --decide stopped at --max-rounds 6 \(6 rounds\) with the per-round spread of HEAD@5d6e7f8/main@1a2b3c4 at \d+% \(/work c=2\); }, text)
    assert_includes text, "; to decide: a larger --max-rounds, or a smaller spread from a longer -d (2 s now) or a quieter machine " \
                          "(--cpus auto; rackbench doctor), or gate on a larger slowdown; --fail-if-slower 5 neither passes nor fails (exit 3)"
  end

  def test_the_time_budget_ran_out_and_pinned_cpus_are_not_advised_again
    text = sentence(config(max_rounds: 20, cpus: { "server" => [0], "client" => [1] }))
    assert_match(/: --decide stopped after 6 rounds: another round would not fit in --time-budget 900 s, with the per-round /, text)
    assert_match(/to decide: a larger --time-budget, or a smaller spread from a longer -d \(2 s now\) or a quieter machine \(rackbench doctor\), or gate/, text)
  end

  def test_without_decide_the_advice_is_to_add_rounds
    text = sentence(config(decide: false))
    assert_match(/add rounds \(--decide\) or gate on a larger slowdown/, text)
  end
end
