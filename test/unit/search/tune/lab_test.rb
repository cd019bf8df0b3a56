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
