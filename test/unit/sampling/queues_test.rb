# frozen_string_literal: true

require "test_helper"
require "socket"
require "json"
require "rackbench/system/listen_queue"
require "rackbench/sampling/puma_stats"
require "rackbench/sampling/queue_summary"
require "rackbench/sampling/queues"

# Where requests wait: the kernel's accept queue (read on a real socket) and
# Puma's stats (parsed from a recorded answer of Puma 8's control app).
class QueuesTest < Minitest::Test
  def test_accept_queue_counts_connections_not_yet_accepted
    server = TCPServer.new("127.0.0.1", 0)
    server.listen(7)
    port = server.addr[1]
    assert_equal 0, Rackbench::System::ListenQueue.read(port).depth
    clients = Array.new(3) { TCPSocket.new("127.0.0.1", port) }
    sleep 0.05
    depth = Rackbench::System::ListenQueue.read(port)
    assert_equal 3, depth.depth
    assert_equal 7, depth.limit, "the listen(2) backlog"
    server.accept.close
    assert_equal 2, Rackbench::System::ListenQueue.read(port).depth
  ensure
    clients&.each(&:close)
    server&.close
  end

  def test_no_listener_is_nil
    port = TCPServer.open("127.0.0.1", 0) { |s| s.addr[1] }
    assert_nil Rackbench::System::ListenQueue.read(port)
  end

  CLUSTER = <<~JSON
    {"workers":2,"worker_status":[
     {"pid":4444,"index":0,"last_checkin":"2026-11-23T11:19:06Z","last_status":{"backlog":3,"running":5,"pool_capacity":0,"busy_threads":8,"max_threads":5,"requests_count":55}},
     {"pid":4448,"index":1,"last_checkin":"2026-11-23T11:19:06Z","last_status":{"backlog":2,"running":5,"pool_capacity":0,"max_threads":5,"requests_count":50}}]}
  JSON

  def test_puma_cluster_stats_per_worker
    workers = Rackbench::Sampling::PumaStats.parse(JSON.parse(CLUSTER))
    assert_equal [4444, 4448], workers.map(&:pid)
    assert_equal [3, 2], workers.map(&:backlog)
    assert_equal [8, 7], workers.map(&:busy), "before Puma 6.5: running - pool_capacity + backlog"
    assert_equal [55, 50], workers.map(&:requests)
  end

  def test_puma_single_mode_stands_for_its_one_process
    single = { "backlog" => 1, "running" => 5, "pool_capacity" => 0, "busy_threads" => 6, "max_threads" => 5, "requests_count" => 9 }
    w = Rackbench::Sampling::PumaStats.parse(single, pid: 77).first
    assert_equal [77, 1, 6, 9, nil], [w.pid, w.backlog, w.busy, w.requests, w.checkin]
  end

  # A cluster reading from before the workers' first check-in in the trial shows the warm-up.
  def test_summary_skips_cluster_readings_older_than_the_trial
    stale = { "workers" => [{ "pid" => 1, "backlog" => 6, "busy" => 11, "threads" => 5, "checkin" => "T1" }] }
    fresh = { "workers" => [{ "pid" => 1, "backlog" => 0, "busy" => 1, "threads" => 5, "checkin" => "T2" }] }
    queues = Struct.new(:rows, :failures).new({ "accept" => [{ "server" => 0, "server_limit" => 1024 }, { "server" => 2, "server_limit" => 1024 }],
                                                "server" => [stale, stale, fresh, fresh] }, {})
    summary = Rackbench::Sampling::QueueSummary.build(queues, listeners: { "server" => 1 }, server_kind: "puma")
    assert_equal 0.0, summary.dig("server", "backlog", "mean")
    assert_equal 2, summary.dig("server", "backlog", "samples")
    assert_equal({ "mean" => 1.0, "p95" => 2, "max" => 2, "samples" => 2, "limit" => 1024 }, summary["accept"])
    assert_equal 1.0, summary["waiting_mean"]
  end

  def test_sources_that_fail_are_unknown_with_their_reason
    failing = Object.new
    def failing.read = raise(Rackbench::Sampling::PumaStats::Error, "Puma's control app answered 403")

    port = TCPServer.open("127.0.0.1", 0) { |s| s.addr[1] }
    queues = Rackbench::Sampling::Queues.new(listeners: { "server" => port }, server_stats: failing, interval: 0.05).start
    sleep 0.15
    queues.stop
    summary = Rackbench::Sampling::QueueSummary.build(queues, listeners: { "server" => port }, server_kind: "puma")
    assert_match(/no socket listens on port #{port}/, summary.dig("accept", "unknown"))
    assert_match(/answered 403/, summary.dig("server", "unknown"))
    assert_nil summary["waiting_mean"]
  end
end
