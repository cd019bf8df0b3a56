# frozen_string_literal: true

require "test_helper"
require "json"
require "time"
require "rackbench/load"

# run --boot together on real servers: round 1 boots each setup alone (its
# footprint measured), round 2 boots both before measuring either, then
# measures them cell by cell in the round's order; the reports say so.
class BootTogetherTest < Minitest::Test
  def test_round_two_boots_side_by_side_and_measures_cell_by_cell
    require_tool!("wrk", Rackbench::Load::Wrk.new.available?)
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "-s", "puma x1:2", "-s", "unicorn x1", "-e", "/hello", "-e", "/pause/0.01",
                                  "-c", "2", "-d", "0.5", "--warmup", "0", "-r", "2", "--boot", "together", "-o", out)
    assert_equal 0, status, err
    assert_match(/^--boot together: round 2: booted side by side \(2\.0x their measured footprint \d+ MiB fits in \d+ MiB available\)$/,
                 stdout + err)
    boots = File.readlines(File.join(out, "setups.jsonl")).map { |l| JSON.parse(l) }
    trials = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert(trials.all? { |t| t["requests"].positive? && t.dig("memory", "pss_total_max_mb").to_f.positive? }, "every trial measured")

    round1 = trials.select { |t| t["repetition"] == 1 }.map { |t| [t["setup"], t["endpoint"]] }
    assert_equal 2, round1.map(&:first).chunk_while { |a, b| a == b }.to_a.size, "round 1: one setup's trials, then the other's"
    assert(boots.select { |b| b["repetition"] == 1 }.none? { |b| b.key?("neighbours") })

    order = boots.select { |b| b["repetition"] == 2 }
    assert_equal [["unicorn x1"], ["puma x1:2"]].sort, order.map { |b| b["neighbours"] }.sort
    round2 = trials.select { |t| t["repetition"] == 2 }
    first_trial = round2.map { |t| Time.iso8601(t["started_at"]) }.min
    assert(order.all? { |b| Time.iso8601(b["at"]) < first_trial }, "both booted before either was measured")
    labels = order.map { |b| b["setup"] }
    assert_equal %w[/hello /pause/0.01].product(labels), round2.map { |t| [t["endpoint"], t["setup"]] },
                 "cell by cell, in the round's boot order"
    assert_includes stdout, "Boots: round(s) 2 booted their setups side by side and measured them cell by cell " \
                            "(--boot together); round(s) 1 apart."
  end
end
