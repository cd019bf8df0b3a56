# frozen_string_literal: true

require "test_helper"
require_relative "../report/run_fixture"

# `run --resume` on a capacity or tune run directory: those searches cannot
# be continued, so say so and what to run, instead of running an ordinary
# grid into the search's directory.
class ResumeSearchTest < Minitest::Test
  def test_a_capacity_run_is_not_resumed_as_a_grid
    dir = File.join(tmpdir, "cap")
    Rackbench::RunFixture.capacity_run(dir)
    meta = JSON.parse(File.read(File.join(dir, "meta.json")))
    argv = ["rackbench", "capacity", "-s", "puma x2:5", "-e", "/pause/0.05"]
    File.write(File.join(dir, "meta.json"), JSON.generate(meta.merge("command" => "capacity", "argv" => argv,
                                                                      "config" => { "endpoints" => ["/pause/0.05"] })))
    trials_before = File.read(File.join(dir, "trials.jsonl"))
    status, _out, err = run_cli("run", "--resume", dir)
    assert_equal 2, status, err
    assert_match(/\AError: .*cap holds a rackbench capacity run, which cannot be resumed .*run it again \(rackbench capacity -s puma\\ x2:5 -e \/pause\/0.05\) with a new --out; its stored trials stay readable with rackbench report .*cap\n\z/, err)
    assert_equal trials_before, File.read(File.join(dir, "trials.jsonl")), "nothing measured into the capacity run"
  end
end
