# frozen_string_literal: true

require "test_helper"
require "rackbench/search/tune/pareto"

class TuneParetoTest < Minitest::Test
  def row(setup, rps, mb)
    { "setup" => setup, "rps" => rps, "footprint_mb" => mb }
  end

  def test_marks_the_setups_no_other_beats_on_both_throughput_and_memory
    rows = Rackbench::Search::Tune::Pareto.mark(
      [row("a", 400, 600), row("b", 300, 300), row("c", 250, 400), row("d", 100, 100), row("e", 400, 700), row("f", nil, 50)]
    )
    marks = rows.to_h { |r| [r["setup"], r["pareto"]] }
    assert_equal({ "a" => true, "b" => true, "c" => false, "d" => true, "e" => true, "f" => nil }, marks)
    # e ties a on throughput: not dominated (a is not strictly faster).
  end
end
