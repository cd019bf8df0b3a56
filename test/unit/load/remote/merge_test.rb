# frozen_string_literal: true

require "test_helper"
require "rackbench/load/remote/merge"
require "rackbench/load/remote/host"

module Rackbench
  class RemoteMergeTest < Minitest::Test
    Remote = Load::Remote
    H = Load::LogHistogram

    def part(host, values_ms, cpu_s: 0.2, error: nil, duration: 2.0)
      counts = Hash.new(0)
      values_ms.each { |v| counts[H.index(v * 1e6)] += 1 }
      lat = { "min" => values_ms.min, "max" => values_ms.max, "mean" => values_ms.sum / values_ms.size,
              "stdev" => 0.0, "p99" => 0.0 }
      result = Load::Result.new(engine: "wrk", loop: "closed", requests: values_ms.size, duration_s: duration,
                                bytes: 10 * values_ms.size, errors: Load::Result::ERROR_KINDS.to_h { |k| [k, 1] },
                                latency_ms: lat, command: %w[wrk])
      Remote::Merge::Part.new(host: Remote::Host.parse(host), share: 0.5, level: { "concurrency" => 2 }, cores: 2,
                              result: error ? nil : result, histogram: { "latency" => counts },
                              cpu: { "cpu_s" => cpu_s, "wall_s" => 2.0 }, error: error)
    end

    def test_counts_add_and_percentiles_come_from_the_summed_histogram
      merged = Remote::Merge.call([part("root@a", [2.0] * 1000), part("root@b", [2.0] * 980 + [500.0] * 20, duration: 2.1)],
                                  loop: "closed")
      assert_equal 2000, merged.requests
      assert_equal 20_000, merged.bytes
      assert_equal 2, merged.errors["read"]
      assert_equal 2.1, merged.duration_s
      assert_in_delta 2.0, merged.latency_ms["p99"], 0.002
      assert_nil merged.valid
      assert_equal [1000, 1000], merged.hosts.map { |h| h["requests"] }
      assert_equal %w[root@a:22 root@b:22], merged.hosts.map { |h| h["host"] }
    end

    def test_a_failed_host_or_a_busy_client_makes_the_trial_invalid_with_the_host_named
      merged = Remote::Merge.call([part("root@a", [2.0] * 10), part("root@b", [2.0], error: "wrk exited 1")], loop: "closed")
      assert_equal false, merged.valid
      assert_equal "load host root@b:22: failed (wrk exited 1)", merged.invalid_reason
      assert_equal 10, merged.requests

      busy = Remote::Merge.call([part("root@a", [2.0] * 10, cpu_s: 3.2), part("root@b", [2.0] * 10)], loop: "closed")
      assert_equal false, busy.valid
      assert_match(/\Aload host root@a:22: its wrk used 80% of its 2 cores, above 75%/, busy.invalid_reason)
      assert_in_delta 0.8, busy.hosts.first["client_cpu"]["host_share"], 1e-9
    end

    def test_every_host_failing_is_an_error_naming_them
      e = assert_raises(Error) { Remote::Merge.call([part("root@a", [1.0], error: "connection refused")], loop: "closed") }
      assert_equal "load host root@a:22: connection refused", e.message
    end

    def test_histogram_line
      text = "noise\nRACKBENCH_HISTOGRAM {\"unit\":\"ns\",\"latency\":{\"7\":2},\"service\":{\"8\":1}}\n"
      assert_equal({ "latency" => { 7 => 2 }, "service" => { 8 => 1 } }, Remote::Merge.histogram(text))
      assert_raises(Error) { Remote::Merge.histogram("RACKBENCH_HISTOGRAM {\"unit\":\"us\"}") }
      assert_raises(Error) { Remote::Merge.histogram("nothing") }
    end
  end
end
