# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/takes_choice"

# --per-boot auto's K: the median of the cells' Kalibera & Jones takes per
# boot, from the pilot rounds only, at most TakesChoice::MAX.
class TakesChoiceTest < Minitest::Test
  Store = Struct.new(:trials, :setups)
  CONFIG = { duration: 2.0, cooldown: 0.0, warmup: 0.0 }.freeze

  # boots: {setup => [[take rps, ...] per round]}; boot_s: each boot's seconds.
  def store(boots, boot_s:)
    trials = boots.flat_map do |setup, rounds|
      rounds.each_with_index.map do |takes, i|
        { "setup" => setup, "endpoint" => "/x", "concurrency" => 8, "repetition" => i + 1,
          "rps" => takes.sum / takes.size, "take_rps" => takes }
      end
    end
    setups = boots.flat_map do |setup, rounds|
      rounds.each_index.map { |i| { "setup" => setup, "repetition" => i + 1, "status" => "ok", "boot_s" => boot_s } }
    end
    Store.new(trials, setups)
  end

  def test_boots_that_vary_while_takes_agree_choose_one_take
    s = store({ "a" => [[100.0, 101.0], [130.0, 131.0]], "b" => [[80.0, 80.5], [60.0, 60.5]] }, boot_s: 2.0)
    choice = Rackbench::Runner::TakesChoice.call(s, CONFIG)
    assert_equal 1, choice.takes
    assert_equal 2, choice.cells
    assert_match(/median of 2 cell\(s\)' best takes per boot \(1, 1\)/, choice.reason)
  end

  # A boot costing 16 takes: k = ceil(sqrt(16 x within / between)), by hand:
  # each boot's takes 10% apart: within = ln(1.1)^2 / 2 = 0.0045421; the
  # boots' means 20% apart: var = ln(1.2)^2 / 2 = 0.0166199, between =
  # 0.0166199 - 0.0045421 / 2 = 0.0143489; sqrt(16 x 0.31655) = 2.25: 3.
  def test_a_dear_boot_chooses_kalibera_and_jones_takes
    boots = { "a" => [[100.0, 110.0], [120.0, 132.0]] }
    assert_equal 3, Rackbench::Runner::TakesChoice.call(store(boots, boot_s: 32.0), CONFIG).takes
  end

  def test_takes_that_vary_while_boots_agree_choose_at_most_max
    s = store({ "a" => [[90.0, 110.0], [110.0, 90.0]] }, boot_s: 2.0)
    assert_equal Rackbench::Runner::TakesChoice::MAX, Rackbench::Runner::TakesChoice.call(s, CONFIG).takes
  end

  # Rounds after the pilots (another K, other boots) do not move the choice.
  def test_only_the_pilot_rounds_count
    pilots = { "a" => [[100.0, 101.0], [130.0, 131.0]] }
    later = { "a" => [[100.0, 101.0], [130.0, 131.0], [90.0, 110.0, 100.0, 95.0, 105.0], [110.0, 90.0, 100.0, 95.0, 105.0]] }
    assert_equal Rackbench::Runner::TakesChoice.call(store(pilots, boot_s: 2.0), CONFIG).takes,
                 Rackbench::Runner::TakesChoice.call(store(later, boot_s: 2.0), CONFIG).takes
  end

  def test_nothing_to_split_keeps_the_pilot_takes
    choice = Rackbench::Runner::TakesChoice.call(store({ "a" => [[100.0]] }, boot_s: 2.0), CONFIG)
    assert_equal [2, 0], [choice.takes, choice.cells]
  end
end
