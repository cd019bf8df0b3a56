# frozen_string_literal: true

require "test_helper"
require "socket"
require "rackbench/sampling/unanswered"
require "rackbench/sampling/listen_queue"

# Real loopback sockets of this process, read back through sock_diag.
class UnansweredTest < Minitest::Test
  def setup
    @server = TCPServer.new("127.0.0.1", 0)
    @port = @server.addr[1]
  end

  def teardown
    [@quiet, @busy, @quiet_peer, @busy_peer, @server].each { |s| s&.close }
  end

  def test_a_connection_silent_since_its_request_reports_its_wait_and_an_answered_one_does_not
    @quiet = TCPSocket.new("127.0.0.1", @port)
    @quiet_peer = @server.accept
    @busy = TCPSocket.new("127.0.0.1", @port)
    @busy_peer = @server.accept
    @quiet.write("GET /hang HTTP/1.1\r\n\r\n")
    @busy.write("GET / HTTP/1.1\r\n\r\n")
    watch = Rackbench::Sampling::Unanswered.new(port: @port, pids: -> { [Process.pid] }, interval: 0.05).start
    sleep 0.4
    @busy_peer.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    @busy.readpartial(100)
    @busy.write("GET / HTTP/1.1\r\n\r\n") # the next request, as a closed loop sends it
    sleep 0.15
    watch.stop
    ages = watch.ages_ms.sort
    assert_equal 2, ages.size, "only the client side of this port's connections (the server side has another dport)"
    assert_operator ages.first, :<, 200, "the connection that got its answer and sent again"
    assert_operator ages.last, :>=, 450, "the connection silent since its request ~0.55 s ago"
  end

  def test_nothing_found_is_unknown_not_zero
    watch = Rackbench::Sampling::Unanswered.new(port: @port, pids: -> { [] }, interval: 0.05).start
    sleep 0.1
    watch.stop
    assert_nil watch.ages_ms
  end

  def test_the_listen_queue_reads_through_the_same_dump
    @quiet = TCPSocket.new("127.0.0.1", @port) # completed by the kernel, not accepted
    depth = Rackbench::Sampling::ListenQueue.read(@port)
    assert_equal 1, depth.depth
    assert_operator depth.limit, :>, 0
  end
end
