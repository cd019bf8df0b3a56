# frozen_string_literal: true

require "test_helper"
require "rackbench/search/tune/lab"
require "rackbench/load/result"

# How long Tune::Lab's closed-loop probes last: the decisions only, on
# recorded figures (the probes themselves run in test/integration/tune_test.rb).
class TuneLabProbeTest < Minitest::Test
  Lab = Rackbench::Search::Tune::Lab

  def lab
    Lab.allocate # no server: these two read only what they are given
  end

  def warm(rps, mean_ms, max_ms)
    Struct.new(:rps, :latency_ms).new(rps, { "mean" => mean_ms, "max" => max_ms })
  end

  def test_probe_length_from_the_warm_up_pace
    assert_equal 1, lab.probe_seconds(warm(1900, 5, 40)), "fast: the 1 s floor"
    assert_equal 2, lab.probe_seconds(warm(19.5, 51, 60)), "30 responses at 19.5 req/s take 1.54 s"
    assert_equal 4, lab.probe_seconds(warm(60, 120, 1010)), "a 1.01 s response: 3 of them"
    assert_equal 5, lab.probe_seconds(warm(1, 900, 1000)), "at most 5 s"
    assert_equal 5, lab.probe_seconds(nil), "no warm-up figures: the longest"
  end

  def test_a_probe_that_met_slow_responses_or_too_few_is_measured_longer
    assert_nil lab.longer_probe({ "rps" => 190.0, "requests" => 195, "latency_ms" => { "max" => 80.0 } }, 1)
    assert_equal 4, lab.longer_probe({ "rps" => 40.0, "requests" => 41, "latency_ms" => { "max" => 1004.0 } }, 1),
                 "a 1 s response in a 1 s probe: the slow ones were under-counted"
    assert_equal 4, lab.longer_probe({ "rps" => 9.0, "requests" => 9, "latency_ms" => { "max" => 300.0 } }, 1),
                 "30 responses at 9 req/s take 3.3 s... "
    assert_nil lab.longer_probe({ "rps" => 5.0, "requests" => 25, "latency_ms" => { "max" => 1000.0 } }, 5), "already the longest"
    assert_equal 5, lab.longer_probe({ "rps" => 0.0, "requests" => 0, "latency_ms" => {} }, 2), "nothing answered: the longest"
  end
end

require "rackbench/search/tune/deadline"
require "rackbench/stats/slo"
require "rackbench/plan/setup"

# A knee level the load generator could not hold (issue 34: the Rails blog's
# puma x2:8 walked 293.7 -> 146.9 -> 73.4 -> 36.7 req/s on levels whose p99
# met the SLO, each invalid because wrk fell behind its schedule).
class TuneLabClientBoundTest < Minitest::Test
  Lab = Rackbench::Search::Tune::Lab

  FakeSession = Struct.new(:records, :connections) do
    def measure(trial, context:)
      (self.connections ||= []) << context.config[:connections]
      records.shift.merge("key" => "#{trial.key}-#{trial.repetition}")
    end
  end

  def blog(rate, behind: "client", connections: 30)
    { "latency_ms" => { "p99" => 143.0 }, "requests" => 540, "error_total" => 0, "valid" => false, "behind" => behind,
      "target_rate" => rate, "connections" => connections,
      "invalid_reason" => "the load generator fell behind its schedule: sends went out 4.10 ms late on average" }
  end

  def lab
    ctx = Rackbench::Runner::Session::Context.new(store: nil, config: {})
    Lab.new(context: ctx, endpoint: "/posts/1", slo: Rackbench::Stats::Slo.new(p99_ms: 300),
            deadline: Rackbench::Search::Tune::Deadline.new(600)).tap { |l| l.instance_variable_set(:@measuring, 0.0) }
  end

  def test_a_client_bound_level_is_measured_with_fewer_connections_and_is_no_failure
    session = FakeSession.new([blog(293.7), blog(293.7, connections: 15)])
    level = lab.send(:level, session, Rackbench::Setup.parse("puma x2:8"), 293.7, 0.1, [])
    assert_equal [nil, 15], session.connections
    assert_equal [false, true], [level["pass"], level["client"]]

    session = FakeSession.new([blog(293.7), blog(293.7, behind: "both")])
    level = lab.send(:level, session, Rackbench::Setup.parse("puma x2:8"), 293.7, 0.1, [])
    assert_equal [false, nil], [level["pass"], level["client"]], "the server fell behind too: its failure"
  end

  def test_the_bracket_stops_at_the_client_bound_and_says_so
    levels = [{ "level" => 146.9, "pass" => true, "p99_ms" => 99.0 },
              { "level" => 293.7, "pass" => false, "client" => true, "reason" => "not the server's: ..." }]
    knee = lab.send(:bracket, levels, complete: true)
    assert_equal [146.9, nil, 293.7], knee.values_at("pass", "fail", "bound"), "a client-bound level is no failing level"
    assert_match(/could not hold 294 req\/s on this machine/, knee["bound_reason"])
  end
end
