# frozen_string_literal: true

require "test_helper"
require "json"

# rackbench capacity finds the knee a setup's thread count implies.
class CapacityIntegrationTest < Minitest::Test
  def test_open_loop_knee_of_two_unicorn_workers_on_pause
    dir = File.join(tmpdir, "cap")
    status, out, err = run_cli("capacity", "-s", "unicorn x2", "-e", "/pause/0.02", "--loop", "open", "-d", "1",
                               "--warmup", "1", "--max-levels", "6", "-q", "-o", dir)
    assert_equal 0, status, err
    rows = File.readlines(File.join(dir, "capacity.jsonl")).map { |l| JSON.parse(l) }
    knee = rows.find { |r| r["type"] == "knee" }
    assert_in_delta 100.0, knee.dig("open", "pass"), 20.0, "2 workers / 0.02 s = 100 req/s"
    assert_operator knee.dig("open", "fail"), :>, knee.dig("open", "pass")
    levels = rows.select { |r| r["type"] == "level" }
    assert_operator levels.size, :<=, 6
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_operator trials.size, :>=, levels.size, "every measured level is stored as a trial"
    assert(trials.all? { |t| t["loop"] == "open" && t["rate"] })
    assert_match(/unicorn x2 on \/pause\/0.02:\n  open loop: sustains [\d.]+ req\/s within p99 500 ms/, out)
  end

  def test_bad_slo_values
    status, _out, err = run_cli("capacity", "-s", "thin", "-e", "/", "--slo-p99", "fast")
    assert_equal 2, status
    assert_match(/--slo-p99 "fast": write 500ms, 0.5s or 500/, err)
    status, _out, err = run_cli("capacity", "-s", "thin")
    assert_equal 2, status
    assert_match(/give the endpoint to search with --endpoint/, err)
  end
end
