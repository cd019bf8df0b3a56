# frozen_string_literal: true

require "test_helper"
require "rackbench/report/boots_note"

# The line (and JSON) that says how a run's boots were made.
class BootsNoteTest < Minitest::Test
  NOTE = Rackbench::Report::BootsNote

  def row(rep, setup, neighbours: nil, aslr: nil, status: "ok")
    { "setup" => setup, "repetition" => rep, "status" => status, "neighbours" => neighbours, "aslr" => aslr }.compact
  end

  def test_rounds_booted_together_and_apart_are_named
    rows = [row(1, "a"), row(1, "b"), row(2, "a", neighbours: ["b"]), row(2, "b", neighbours: ["a"]),
            row(3, "a", neighbours: ["b"]), row(3, "b", neighbours: ["a"]), row(4, "a"), row(4, "b"),
            row(5, "a", neighbours: ["b"]), row(5, "b", status: "failed")]
    assert_equal({ "together_rounds" => [2, 3, 5], "apart_rounds" => [1, 4], "aslr" => "on" }, NOTE.to_h(rows))
    assert_equal "Boots: round(s) 2-3, 5 booted their setups side by side and measured them cell by cell " \
                 "(--boot together); round(s) 1, 4 apart.", NOTE.line(rows)
  end

  def test_aslr_off_is_said_and_a_plain_run_says_nothing
    assert_equal "Boots: servers ran with address randomisation off (--aslr off).", NOTE.line([row(1, "a", aslr: "off")])
    assert_nil NOTE.line([row(1, "a"), row(2, "a")])
    assert_nil NOTE.line([])
  end
  # --per-boot (auto): the takes each round's boots took, from the boots.
  def test_takes_per_boot_are_said_by_round
    rows = [row(1, "a"), row(2, "a"), row(3, "a")]
    trials = [{ "repetition" => 1, "takes" => 2 }, { "repetition" => 2, "takes" => 2 }, { "repetition" => 3, "takes" => 1 }]
    assert_equal({ "1" => 2, "2" => 2, "3" => 1 }, NOTE.to_h(rows, trials)["takes_per_boot"])
    assert_equal "Boots: 2 take(s) per boot in round(s) 1-2, 1 take(s) per boot in round(s) 3.", NOTE.line(rows, trials)
    refute NOTE.to_h(rows, [{ "repetition" => 1 }]).key?("takes_per_boot")
  end
end
