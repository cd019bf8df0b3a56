# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/cell_split"

# A cell's split pools its trials' by their requests.
class CellSplitTest < Minitest::Test
  def trial(requests, wall, cpu, **extra)
    { "split" => { "requests" => requests, "wall_ms" => wall, "cpu_ms" => cpu, "gc_ms" => 0.5, "waiting_ms" => wall - cpu,
                   "cpu_method" => "thread", "waiting" => "wall less CPU" }.merge(extra) }
  end

  def test_weighted_by_requests
    cell = Rackbench::Stats::CellSplit.of([trial(100, 50.0, 10.0), trial(300, 60.0, 10.0), { "rps" => 1.0 }])
    assert_equal 2, cell["trials"]
    assert_equal 400, cell["requests"]
    assert_equal 57.5, cell["wall_ms"]
    assert_equal 10.0, cell["cpu_ms"]
    assert_equal 5.8, cell["threads_per_process"]
    refute cell.key?("sql_ms"), "a figure only some trials have is left out"
  end

  def test_pool_and_sql_when_every_trial_has_them
    pool = ->(w, n) { { "size" => 5, "busy_mean" => 5.0, "waiting_mean" => w, "waiting_share" => w.positive? ? 1.0 : 0.0, "samples" => n } }
    cell = Rackbench::Stats::CellSplit.of([trial(10, 40.0, 8.0, "sql_ms" => 30.0, "pool" => pool.call(2.0, 10)),
                                           trial(10, 40.0, 8.0, "sql_ms" => 20.0, "pool" => pool.call(0.0, 30))])
    assert_equal 25.0, cell["sql_ms"]
    assert_equal 0.5, cell.dig("pool", "waiting_mean")
    assert_equal 0.25, cell.dig("pool", "waiting_share")
  end

  def test_nil_without_the_probe
    assert_nil Rackbench::Stats::CellSplit.of([{ "rps" => 3.0 }, { "split" => { "unknown" => "no file" } }])
  end
end
