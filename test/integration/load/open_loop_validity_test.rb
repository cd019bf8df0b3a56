# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/load/open_loop_validity"
require "rackbench/load/wrk"

# The open-loop validity rules on a real server (load/open_loop_validity.rb).
# "puma x1:1" on /pause/0.02 answers at most 1 / 0.02 = 50 req/s. At 25 req/s
# it keeps up: the trial is valid and over the window's second half it
# answers the offered rate. At 80 req/s its queue grows: the trial is
# invalid, and over the second half it answers near its 50 req/s capacity,
# under 97% of the offered rate, which the second-half rule calls falling
# behind (the first rule, under 99% of the planned requests answered, also
# holds, and is the reason stored first).
class OpenLoopValidityIntegrationTest < Minitest::Test
  Validity = Rackbench::Load::OpenLoopValidity
  NO_SLIP = { "sends" => 0, "mean" => 0.0, "late" => 0 }.freeze
  DURATION_S = 2.0

  # The wrk-open JSON line of a trial, from its stored log.
  def wrk_json(dir, trial)
    line = File.readlines(File.join(dir, "logs", trial["log"])).find { |l| l.include?("answered_in_second_half") }
    refute_nil line, "the trial's log holds wrk-open's JSON line"
    JSON.parse(line[line.index("{")..])
  end

  def test_a_server_that_keeps_up_and_one_that_falls_behind
    require_tool!("wrk", Rackbench::Load::Wrk.new.available?)
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "-s", "puma x1:1", "-e", "/pause/0.02", "--rate", "25,80", "-d", DURATION_S,
                                "--warmup", "0", "-q", "-o", dir)
    # An invalid trial is a measurement that says so, not a failed setup: exit 0.
    assert_equal 0, status, err
    trials = File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }.to_h { |t| [t["target_rate"], t] }
    kept, behind = trials.values_at(25.0, 80.0)
    tail = ->(t) { wrk_json(dir, t)["answered_in_second_half"] / (DURATION_S / 2) } # req/s over the second half

    assert kept["valid"], kept["invalid_reason"]
    assert_in_delta 25.0, tail.call(kept), 3.0, "answered over the second second: the offered rate"

    refute behind["valid"]
    # 80 req/s for 2 s plans 160 requests; about 100 answered is far below 99%: the first rule's reason.
    assert_match(/\Aachieved [\d.]+ req\/s, [\d.]+% of the 80 req\/s target \(below 99%\)/, behind["invalid_reason"])
    tail_rate = tail.call(behind)
    # One thread on a 20 ms pause: 50 req/s at most, less each request's
    # turnaround (47-48 expected), counted over 1 s (one request either way).
    assert_includes 40.0..52.0, tail_rate, "the server's capacity, not the offered 80 req/s"
    _, reason = Validity.check(target_rate: 80.0, achieved_rate: 80.0, slip: NO_SLIP, tail_rate: tail_rate,
                               connections: behind["connections"], duration_s: DURATION_S)
    assert_match(/the server fell behind: it answered [\d.]+ req\/s over the second half/, reason.to_s)
    _, reason = Validity.check(target_rate: 25.0, achieved_rate: 25.0, slip: NO_SLIP, tail_rate: tail.call(kept),
                               connections: kept["connections"], duration_s: DURATION_S)
    assert_nil reason
  end
end
