# frozen_string_literal: true

require "test_helper"
require "rackbench/load/histogram_merge"

module Rackbench
  class HistogramMergeTest < Minitest::Test
    H = Load::LogHistogram

    def host(values_ms)
      counts = Hash.new(0)
      values_ms.each { |ms| counts[H.index(ms * 1e6)] += 1 }
      mean = values_ms.sum / values_ms.size.to_f
      stdev = Math.sqrt(values_ms.sum { |v| (v - mean)**2 } / values_ms.size)
      { counts: counts, latency_ms: { "min" => values_ms.min, "max" => values_ms.max, "mean" => mean, "stdev" => stdev } }
    end

    # The issue's example: per-host p99s of 2 and 500 ms; the union's is 2 ms.
    def test_union_p99_comes_from_the_summed_histogram_not_an_average
      a = host([2.0] * 1000)
      b = host([2.0] * 980 + [500.0] * 20)
      assert_in_delta 2.0, Load::HistogramMerge.latency_ms([a])["p99"], 0.002
      assert_in_delta 500.0, Load::HistogramMerge.latency_ms([b])["p99"], 0.5
      union = Load::HistogramMerge.latency_ms([a, b])
      assert_in_delta 2.0, union["p99"], 0.002
      assert_in_delta 500.0, union["p99.9"], 0.5 # the 1,998th of 2,000 values is a slow one
      assert_equal 500.0, union["max"]
      assert_equal 2.0, union["min"]
    end

    def test_pooled_mean_and_stdev_equal_those_of_all_values
      a_values = [1.0, 2.0, 3.0] * 10
      b_values = [10.0, 30.0] * 7
      union = Load::HistogramMerge.latency_ms([host(a_values), host(b_values)])
      all = a_values + b_values
      mean = all.sum / all.size
      assert_in_delta mean, union["mean"], 1e-9
      assert_in_delta Math.sqrt(all.sum { |v| (v - mean)**2 } / all.size), union["stdev"], 1e-9
    end

    def test_summed_counts_and_empty_hosts
      assert_equal({ 3 => 5, 9 => 1 }, Load::HistogramMerge.sum([{ "3" => 2, "9" => 1 }, { 3 => 3 }]))
      empty = { counts: {}, latency_ms: { "min" => nil, "max" => nil, "mean" => nil, "stdev" => nil } }
      assert_nil Load::HistogramMerge.latency_ms([empty])["p99"]
      assert_in_delta 2.0, Load::HistogramMerge.latency_ms([empty, host([2.0] * 10)])["p50"], 0.002
    end

    # The Ruby layout must stay that of wrk/histogram.lua (the hosts' side).
    def test_bucket_layout_matches_histogram_lua
      require_tool!("luajit")
      values = [0, 1, 999.5, 1023, 1024, 1500, 2_000_000, 123_456_789, 5e11]
      lua = "local H = dofile('#{File.expand_path('../../../lib/rackbench/load/wrk/histogram.lua', __dir__)}')\n" \
            "for _, v in ipairs({#{values.join(',')}}) do local i = H.index(v); print(i, H.midpoint(i)) end"
      out, _err, status = capture_with_timeout("luajit", "-e", lua, timeout: 30)
      assert status.success?
      out.lines.map(&:split).each_with_index do |(i, mid), k|
        assert_equal Integer(i), H.index(values[k]), "index of #{values[k]}"
        assert_in_delta Float(mid), H.midpoint(Integer(i)), 1e-6
      end
    end
  end
end
