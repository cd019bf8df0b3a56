# frozen_string_literal: true

require "test_helper"
require "rackbench/stats/slo"

# An open-loop level above what the setup's slots can serve is not
# sustained, whatever its p99 (issue 46, item 9.2): `capacity -s "puma x2:5"
# -e /pause/0.05` printed "sustains 237 req/s" where 10 threads x 50 ms allow
# 200. Its 2 s trial answered all 474 requests, the last ones after the
# window, so achieved = 474 / 2 s = the offered rate and the trial was valid.
class SloCeilingTest < Minitest::Test
  SLO = Rackbench::Stats::Slo.new(p99_ms: 500)

  # The stored record of that level (trials.jsonl), its p99 within the SLO.
  def level(rate, setup: "puma x2:5", workers: 2, threads: 5, fibers: false, wall_ms: 51.2, loop: "open", p99: 420.0)
    { "setup" => setup, "workers" => workers, "threads" => threads, "fibers" => fibers, "loop" => loop,
      "rate" => rate, "target_rate" => rate, "achieved_rate" => rate, "requests" => (rate * 2).round, "rps" => rate,
      "error_total" => 0, "valid" => true, "latency_ms" => { "p99" => p99, "mean" => 250.0 },
      "split" => { "requests" => (rate * 2).round, "wall_ms" => wall_ms } }
  end

  def test_a_rate_above_the_slots_ceiling_fails_with_its_physics
    v = SLO.judge(level(237.0))
    refute v.pass
    assert_equal "237 req/s offered is more than 10 slots (2 workers x 5 threads) serve at 51 ms a request in the app " \
                 "(195 req/s, Little's law): its queue grew through the trial, too short for p99 to show it; " \
                 "it cannot sustain this rate", v.reason
    refute v.marginal, "no nearer look changes the physics"
  end

  def test_a_rate_below_the_ceiling_is_judged_on_its_p99
    assert SLO.judge(level(190.0)).pass
    assert SLO.judge(level(200.0)).pass, "within the ceiling's 5% slack (the probe's wall time leaves out the server's own work)"
  end

  def test_no_ceiling_without_slots_to_count
    assert SLO.judge(level(237.0, fibers: true)).pass, "fibers: no slots"
    assert SLO.judge(level(237.0, wall_ms: nil)).pass, "no probe: no wall time"
    assert SLO.judge(level(237.0, loop: "closed")).pass, "a closed loop cannot offer more than it is answered"
    assert SLO.judge(level(237.0, setup: "puma x2:5 io:4")).pass, "io:4 adds 4 slots a worker: 18 slots, 351 req/s"
  end
end
