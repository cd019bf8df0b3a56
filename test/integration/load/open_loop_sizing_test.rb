# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/load"

# A real open-loop run sizes its connections from the warm-up it measured
# (Little's law) and stores the decision on the trial.
class OpenLoopSizingIntegrationTest < Minitest::Test
  def test_connections_come_from_the_warmup_and_are_stored
    require_tool!("wrk", Rackbench::Load::Wrk.new.available?)
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "-s", "puma x1:8", "-e", "/pause/0.05", "--rate", "100", "-d", "1", "--warmup", "1",
                                "-q", "-o", dir)
    assert_equal 0, status, err
    trial = JSON.parse(File.readlines(File.join(dir, "trials.jsonl")).first)
    sizing = trial.fetch("connections_sizing")
    assert_operator sizing["latency_ms"], :>=, 50, "the warm-up's p99 service time includes the 50 ms pause"
    assert_equal [(100 * sizing["latency_ms"] / 1000.0 * 2).ceil, 8].max, sizing["connections"]
    assert_equal sizing["connections"], trial["connections"], "wrk opened that many"
    assert trial["valid"], trial["invalid_reason"]
  end
end
