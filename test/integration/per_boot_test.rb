# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/cli"
require "rackbench/store/run_dir"
require "rackbench/load"
require "rackbench/runner"

# run --per-boot K on a real server: K takes of each cell per boot, stored
# each apart, reported one record per boot, and the variance split between
# boots and takes printed and in the JSON report.
class PerBootTest < Minitest::Test
  # puma x1:2 on /hello, 0.5 s trials, ROUNDS rounds of --per-boot PER_BOOT
  # into a fresh directory: [run directory, stdout, stderr] of a run that exited 0.
  def run_takes(rounds, per_boot)
    require_tool!("wrk", Rackbench::Load::Wrk.new.available?)
    out = File.join(tmpdir, "run")
    status, stdout, err = run_cli("run", "-s", "puma x1:2", "-e", "/hello", "-c", "2", "-d", "0.5", "--warmup", "0",
                                  "-r", rounds.to_s, "--per-boot", per_boot.to_s, "-o", out)
    assert_equal 0, status, err
    [out, stdout, err]
  end

  def test_takes_are_stored_apart_and_reported_per_boot_with_the_variance_split
    out, stdout, = run_takes(2, 3)
    raw = File.readlines(File.join(out, "trials.jsonl")).map { |l| JSON.parse(l) }
    assert_equal [[1, 1], [1, 2], [1, 3], [2, 1], [2, 2], [2, 3]], raw.map { |t| t.values_at("repetition", "take") }.sort
    assert(raw.all? { |t| t["requests"].positive? }, "every take measured")
    boots = JSON.parse(File.read(File.join(out, "setups.jsonl")).lines.first)
    assert_equal "ok", boots["status"]
    assert_equal 2, File.readlines(File.join(out, "setups.jsonl")).size, "one boot per round, not per take"

    store = Rackbench::Store::RunDir.open(out)
    assert_equal [3, 3], store.trials.map { |t| t["takes"] }
    store.trials.each do |boot|
      takes = raw.select { |t| t["repetition"] == boot["repetition"] }
      assert_in_delta takes.sum { |t| t["rps"] } / 3, boot["rps"], 0.01
      assert_equal takes.sort_by { |t| t["take"] }.map { |t| t["rps"] }, boot["take_rps"]
    end
    assert_match(%r{^  /hello c=2 puma x1:2: between boots \d+\.\d%, between takes \d+\.\d% \(2 boots x 3 takes\) -> }, stdout)

    status, json, = run_cli("report", out, "--format", "json")
    assert_equal 0, status
    split = JSON.parse(json)["boot_variance"]
    assert_equal [["/hello", "puma x1:2", 2, 2, 3.0]], split.map { |v| v.values_at("endpoint", "setup", "level", "boots", "takes_per_boot") }
    assert_operator split.first["within_boot_pct"], :>, 0, "three takes of a real server never agree to the request"
  end
  # --per-boot auto: two pilot rounds of 2 takes, then round 3 takes the K
  # that Kalibera & Jones's rule gives on the stored pilots, said in a note.
  def test_auto_chooses_the_takes_of_later_rounds_from_the_pilots
    out, stdout, err = run_takes(3, "auto")
    store = Rackbench::Store::RunDir.open(out)
    meta = JSON.parse(File.read(File.join(out, "meta.json")))
    assert_equal [0.5, 0], meta["config"].values_at("duration", "warmup")
    chosen = Rackbench::Runner::TakesChoice.call(store, meta["config"])
    assert_equal 1, chosen.cells, "one cell split from two pilot boots"
    takes = store.raw_trials.group_by { |t| t["repetition"] }.transform_values(&:size)
    assert_equal({ 1 => 2, 2 => 2, 3 => chosen.takes }, takes)
    assert_includes stdout + err, "--per-boot auto: #{chosen.takes} take(s) per boot from round 3 on"
    assert_equal "auto", meta.dig("plan", "per_boot")
    said = chosen.takes == 2 ? "2 take(s) per boot in round(s) 1-3" : "2 take(s) per boot in round(s) 1-2, #{chosen.takes} take(s) per boot in round(s) 3"
    assert_includes stdout, "Boots: #{said}."
  end
end
