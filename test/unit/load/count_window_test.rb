# frozen_string_literal: true

require "test_helper"
require "rackbench/load/count_window"
require "rackbench/load/wrk_output"

class CountWindowTest < Minitest::Test
  CW = Rackbench::Load::CountWindow
  FIXTURE = File.expand_path("../../fixtures/wrk/window_pause.txt", __dir__)

  # c connections in step on a fixed latency: every connection completes
  # once per round, so whole rounds give c / latency exactly, whatever the
  # phase; the whole run (stopped before the last round ended) does not.
  def test_connections_in_step_give_the_law_exactly
    times = (1..4).flat_map { |round| Array.new(8) { |i| round * 1.0 + i * 0.001 } } # wrk stopped at 5.0 s
    w = CW.call(times, 8)
    assert_equal 24, w.requests
    assert_in_delta 3.0, w.duration_s, 1e-9
    assert_in_delta 8.0, w.requests / w.duration_s, 1e-9
    assert_in_delta 6.4, times.size / 5.0, 1e-9, "what the whole run gives"
  end

  def test_too_few_responses_give_no_window
    assert_nil CW.call([0.5, 0.6, 0.7], 2)
    assert_nil CW.call([], 4)
    refute_nil CW.call([0.5, 0.6, 0.7], 1)
  end

  def test_wrk_output_counts_the_window_from_the_completions_line
    r = Rackbench::Load::WrkOutput.parse(File.read(FIXTURE), command: %w[wrk -t 2 -c 8 -d 3s])
    assert_equal "window", r.throughput_method
    assert_equal 32, r.requests
    assert_in_delta 2.880441 - 0.877368, r.duration_s, 1e-9
    assert_in_delta 15.98, r.rps, 0.01
    assert_equal 40, r.responses
    assert_in_delta 3.006363, r.window["run_duration_s"], 1e-9
    assert_in_delta 13.3, r.window["run_requests"] / r.window["run_duration_s"], 0.05
  end

  def test_without_the_line_the_whole_run_counts
    r = Rackbench::Load::WrkOutput.parse(File.read(FIXTURE).sub(/^RACKBENCH_COMPLETIONS.*\n/, ""),
                                         command: %w[wrk -c 8])
    assert_equal "whole", r.throughput_method
    assert_equal 40, r.requests
  end

  def test_a_garbled_completions_line_is_an_error
    text = File.read(FIXTURE).sub(/^RACKBENCH_COMPLETIONS .*$/, "RACKBENCH_COMPLETIONS [1,2,")
    e = assert_raises(Rackbench::Error) { Rackbench::Load::WrkOutput.parse(text, command: %w[wrk -c 8]) }
    assert_match(/RACKBENCH_COMPLETIONS line is garbled JSON/, e.message)
  end
end
