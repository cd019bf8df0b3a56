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
end
