# frozen_string_literal: true

require "test_helper"
require "socket"
require "rackbench/system/listen_queue"
require "rackbench/server/puma_stats"
require "rackbench/sampling/queue_summary"
require "rackbench/sampling/queues"

# Where requests wait: the kernel's accept queue (read on a real socket) and
# a server's own stats (Puma's parsed: test/unit/server/puma_stats_test.rb).
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
    def failing.read = raise(Rackbench::Server::PumaStats::Error, "Puma's control app answered 403")

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
