# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/cells"

# Stats::Cells: cells grouped and indexed so a report stays linear in its
# cells; the lists a report asks for per cell are worked out once.
class CellsTest < Minitest::Test
  C = Rackbench::Stats::Cells

  def trials
    %w[/a /b /c].product(["puma x1:2", "thin"], [1, 8]).map do |e, s, c|
      { "endpoint" => e, "setup" => s, "concurrency" => c, "rps" => 100.0 }
    end
  end

  def test_lists_in_first_seen_order
    cells = C.new(trials)
    assert_equal %w[/a /b /c], cells.endpoints
    assert_equal ["puma x1:2", "thin"], cells.setups
    assert_equal ["puma x1:2", "thin"], cells.setups("/b")
    assert_equal [1, 8], cells.levels("/c")
    assert_equal [], cells.setups("/nowhere")
  end

  # Counted, not timed: asking again for a list scans no cell again (a scan
  # per request made 40,000 cells' HTML report take 141 s, 14 s once memoized).
  def test_asking_again_scans_no_cell_again
    cells = C.new(trials)
    reads = 0
    cells.cells.each { |cell| cell.define_singleton_method(:setup) { (reads += 1) && super() } }
    3.times { ([nil] + cells.endpoints).each { |e| cells.setups(e) } }
    assert_equal 2 * cells.cells.size, reads, "each cell read once for the run's list and once for its endpoint's"
  end
end
