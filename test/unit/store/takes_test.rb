# frozen_string_literal: true

require "test_helper"
require "rackbench/store/takes"

# run --per-boot K: the takes of one boot become one record, their mean.
class TakesTest < Minitest::Test
  Takes = Rackbench::Store::Takes

  def take(rep, take, rps, p99:, errors: 0, warnings: [], valid: true, level: 8)
    { "key" => ["puma x2:5", "/x", level, rep, take > 1 ? "t#{take}" : nil].compact.join("|"), "setup" => "puma x2:5",
      "endpoint" => "/x", "concurrency" => level, "repetition" => rep, "take" => take, "rps" => rps,
      "requests" => (rps * 2).round, "latency_ms" => { "p99" => p99, "mean" => p99 / 2 }, "errors" => { "read" => errors },
      "warnings" => warnings, "valid" => valid, "engine" => "wrk", "command" => ["wrk", "--latency", "log#{take}"] }
  end

  def test_records_without_takes_pass_through_unchanged
    plain = [{ "setup" => "a", "rps" => 1.0 }, { "setup" => "b", "rps" => 2.0 }]
    assert_same plain, Takes.boots(plain)
  end

  def test_a_boots_takes_become_their_mean_and_keep_each_takes_rps
    records = [take(1, 1, 100.0, p99: 10.0, errors: 1, warnings: ["w1"]), take(1, 2, 110.0, p99: 14.0, errors: 2, valid: false),
               take(1, 3, 120.0, p99: 12.0, warnings: ["w1", "w2"]), take(2, 1, 90.0, p99: 9.0), take(2, 2, 95.0, p99: 11.0),
               take(1, 1, 50.0, p99: 3.0, level: 16)]
    boots = Takes.boots(records)
    assert_equal [[1, 8], [2, 8], [1, 16]], boots.map { |b| [b["repetition"], b["concurrency"]] }, "one per boot and cell, in order"
    first = boots.first
    assert_equal "puma x2:5|/x|8|1", first["key"], "the first take's key"
    assert_in_delta 110.0, first["rps"], 1e-9
    assert_equal 220, first["requests"], "an Integer's mean stays an Integer"
    assert_in_delta 12.0, first.dig("latency_ms", "p99"), 1e-9
    assert_equal 1, first.dig("errors", "read"), "(1 + 2 + 0) / 3"
    assert_equal %w[w1 w2], first["warnings"]
    assert_equal %w[wrk --latency log1], first["command"], "a command line is the first take's, not a mix"
    assert_equal false, first["valid"], "not valid when a take was not"
    assert_equal [3, [100.0, 110.0, 120.0]], first.values_at("takes", "take_rps")
    refute first.key?("take")
    assert_equal [2, [90.0, 95.0]], boots[1].values_at("takes", "take_rps")
    assert_equal [1, [50.0]], boots[2].values_at("takes", "take_rps")
  end
end
