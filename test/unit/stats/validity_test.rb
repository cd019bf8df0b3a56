# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/validity"

# Stats::Validity: a trial shorter than 10x its time per request, or whose
# Little's-law check fails for a reason other than wrk's own latency
# correction, is not valid; a cell is not valid when half its trials are not.
class ValidityTest < Minitest::Test
  V = Rackbench::Stats::Validity

  # A closed-loop wrk trial: c connections, rps, mean latency (ms), run of duration_s.
  def trial(c: 16, rps: 38.3, mean: 410.0, duration_s: 10.0, engine: "wrk", **extra)
    { "concurrency" => c, "rps" => rps, "loop" => "closed", "engine" => engine, "duration_s" => duration_s,
      "latency_ms" => { "mean" => mean, "p99" => mean * 1.1 } }.merge(extra)
  end

  # unicorn x2 on /pause/0.05 at c=16, measured here: 38.3 req/s, mean 379 ms over -d 2.
  def test_a_trial_shorter_than_ten_times_its_time_per_request_is_not_valid_and_names_the_d_it_needs
    short = V.trial(trial(mean: 379.0, duration_s: 2.04))
    refute short.valid?
    assert_equal ["short"], short.problems.map(&:kind)
    assert_equal 5, short.needs_s, "16 / 38.3 req/s = 0.42 s per request: 10x is 4.2 s, whole seconds"
    assert_match(/trial too short for its latency \(2 s run, 0.42 s per request\): -d 5 or longer/, short.problems.first.text)
    assert V.trial(trial(duration_s: 10.06)).valid?
    assert_nil V.trial(trial(duration_s: 10.06)).needs_s
  end

  def test_a_windowed_count_judges_the_whole_run
    # 0.42 s per request: a 1.5 s window inside a 5 s run is valid (the run is 10x), a 3 s run is not.
    windowed = trial(duration_s: 1.5, "throughput_method" => "window", "run" => { "duration_s" => 5.0 })
    assert V.trial(windowed).valid?
    assert_equal 5, V.trial(windowed.merge("run" => { "duration_s" => 3.0 })).needs_s
  end

  def test_an_open_loop_trial_is_judged_by_its_mean_latency
    open = { "loop" => "open", "rate" => 100.0, "rps" => 99.0, "duration_s" => 2.0, "engine" => "wrk-open",
             "latency_ms" => { "mean" => 300.0 } }
    assert_equal 3, V.trial(open).needs_s
    assert V.trial(open.merge("latency_ms" => { "mean" => 150.0 })).valid?
  end

  def test_wrk_latency_correction_is_a_note_not_a_fault
    # c=1, 5000 req/s, mean 0.69 ms: req/s x mean = 3.45, far above c: wrk's synthetic samples.
    check = V.trial(trial(c: 1, rps: 5000.0, mean: 0.69))
    assert check.valid?
    assert_operator check.artifact.ratio, :>, 3
    # the same figures from another closed-loop engine are not explained by wrk
    other = V.trial(trial(c: 1, rps: 5000.0, mean: 0.69, engine: "siege-close"))
    refute other.valid?
    assert_equal ["little"], other.problems.map(&:kind)
    assert_match(/the engine's latency and throughput disagree/, other.problems.first.text)
  end

  def test_too_few_in_flight_on_a_long_enough_trial_is_not_valid_without_a_d
    # c=16, 400 req/s, mean 10 ms: 4 in flight of 16 (connect time outside the latency, say).
    check = V.trial(trial(rps: 400.0, mean: 10.0))
    refute check.valid?
    assert_equal ["little"], check.problems.map(&:kind)
    assert_nil check.needs_s, "a longer -d would not help"
    assert_match(/fewer requests were in flight than connections/, check.problems.first.text)
  end

  def test_too_short_explains_too_few_in_flight
    # /pause/0.5 at c=1 over -d 1: one response counted, 1.0 req/s x 0.5 s = 0.5 of 1.
    check = V.trial(trial(c: 1, rps: 1.0, mean: 501.0, duration_s: 1.0))
    assert_equal ["short"], check.problems.map(&:kind)
    assert_equal 10, check.needs_s
  end

  def test_a_trial_that_says_it_did_not_hold_is_not_valid
    check = V.trial(trial("valid" => false, "invalid_reason" => "achieved 80 req/s of 100"))
    assert_equal ["schedule"], check.problems.map(&:kind)
    assert_match(/achieved 80 req\/s of 100/, check.problems.first.text)
  end

  def test_a_cell_is_not_valid_when_half_its_trials_are_not
    good = trial
    bad = trial(duration_s: 2.0)
    assert V.cell([good, good, bad]).valid?
    refute V.cell([good, bad]).valid?
    cell = V.cell([bad, bad, good])
    refute cell.valid?
    assert_equal 5, cell.needs_s
    assert_match(/\Anot valid \(2 of 3 trials\): trial too short for its latency/, cell.note)
    assert_match(/\Anot valid: /, V.cell([bad]).note)
    assert_nil V.cell([good]).note
  end
end
