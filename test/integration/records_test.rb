# frozen_string_literal: true

require "test_helper"
require "json"

# Whole records: a stored trial's own figures agree with each other, and
# closed-loop throughput is not biased by the trial's end.
class RecordsTest < Minitest::Test
  def run_plan(*args)
    dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", *args, "-q", "-o", dir)
    assert_equal 0, status, err
    File.readlines(File.join(dir, "trials.jsonl")).map { |l| JSON.parse(l) }
  end

  # requests / duration_s is the stored rps, duration_s is the engine's
  # (about wrk's -d, not the sampler's span), errors are the engine's counts.
  def assert_whole(trial, run_s: nil)
    label = "#{trial['key']} (#{trial['throughput_method']})"
    assert_in_delta trial["rps"], trial["requests"] / trial["duration_s"], trial["rps"] * 0.01, label
    assert_equal Rackbench::Load::Result::ERROR_KINDS.sort, trial["errors"].keys.sort, label
    assert_kind_of Hash, trial["sampler"], "the sampler's figures sit apart: #{label}"
    assert_in_delta run_s, trial["duration_s"], 0.2, label if run_s
  end

  def test_every_stored_trial_satisfies_requests_over_duration_equals_rps
    trials = run_plan("-s", "puma x1:2", "-e", "/hello", "-c", "1,4", "-d", "1", "--warmup", "1")
    assert_equal 2, trials.size
    trials.each do |t|
      assert_equal "whole", t["throughput_method"], "a fast endpoint is counted over the whole run"
      assert_whole(t, run_s: 1.0)
      assert_operator t["requests"], :>, 100
    end
  end

  # /pause/0.65 at c = 8 on Puma x1:16 (one worker, so no queueing however
  # the kernel spreads connections; 16 threads, so the 8 warm-up requests
  # still sleeping when the run starts hold no thread it needs): the law is
  # c / latency = 8 / 0.65 s = 12.3 req/s. The rounds end at 0.65, 1.3,
  # 1.95 and 2.6 s and count; the fifth, due at 3.25 s, is after wrk's stop
  # (3.0-3.1 s, its 100 ms timer) and is lost: 32 / 3 s = 10.7 req/s, 0.87
  # of the law. (/pause/0.5 put the sixth round's end on the stop, where a
  # response that arrives before the loop ends counts: 0.83 or 1.0 of the
  # law, a race; on x1:10 the warm-up's leftovers delayed the first round
  # by up to 0.6 s.)
  def test_closed_loop_throughput_on_a_slow_endpoint_follows_the_law
    trial = run_plan("-s", "puma x1:16", "-e", "/pause/0.65", "-c", "8", "-d", "3", "--warmup", "1").first
    assert_equal "window", trial["throughput_method"]
    assert_whole(trial)
    law = 8 / (trial.dig("latency_ms", "p50") / 1000.0)
    assert_in_delta 8 / 0.65, law, 8 / 0.65 * 0.05, "p50 latency is the pause"
    assert_in_delta law, trial["rps"], law * 0.05, "windowed throughput is c / latency"
    whole = trial.dig("run", "requests") / trial.dig("run", "duration_s")
    assert_operator whole, :<, law * 0.9, "the whole-run count this replaces was biased low"
    assert_operator trial.dig("window", "start_s"), :<, trial.dig("window", "end_s")
  end
end
