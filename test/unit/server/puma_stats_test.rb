# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/server/puma_stats"

# Puma's stats (parsed from a recorded answer of Puma 8's control app).
class PumaStatsTest < Minitest::Test
  CLUSTER = <<~JSON
    {"workers":2,"worker_status":[
     {"pid":4444,"index":0,"last_checkin":"2026-11-23T11:19:06Z","last_status":{"backlog":3,"running":5,"pool_capacity":0,"busy_threads":8,"max_threads":5,"requests_count":55}},
     {"pid":4448,"index":1,"last_checkin":"2026-11-23T11:19:06Z","last_status":{"backlog":2,"running":5,"pool_capacity":0,"max_threads":5,"requests_count":50}}]}
  JSON

  def test_puma_cluster_stats_per_worker
    workers = Rackbench::Server::PumaStats.parse(JSON.parse(CLUSTER))
    assert_equal [4444, 4448], workers.map(&:pid)
    assert_equal [3, 2], workers.map(&:backlog)
    assert_equal [8, 7], workers.map(&:busy), "before Puma 6.5: running - pool_capacity + backlog"
    assert_equal [55, 50], workers.map(&:requests)
  end

  def test_puma_single_mode_stands_for_its_one_process
    single = { "backlog" => 1, "running" => 5, "pool_capacity" => 0, "busy_threads" => 6, "max_threads" => 5, "requests_count" => 9 }
    w = Rackbench::Server::PumaStats.parse(single, pid: 77).first
    assert_equal [77, 1, 6, 9, nil], [w.pid, w.backlog, w.busy, w.requests, w.checkin]
  end
end
