# frozen_string_literal: true

require "test_helper"
require "socket"
require "rackbench/sampling/unanswered"
require "rackbench/system/listen_queue"
require "rackbench/clock"

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
    sleep 0.05
    watch.stop
    assert_equal 2, watch.ages_ms.size, "the thread's last reading: only the client side of this port's connections"
    # One reading now (the thread's last one may be late on a busy machine).
    rows = watch.read.sort_by { |r| [r.last_sent_ms, r.last_recv_ms].min }
    assert_equal 2, rows.size, "the server side of each connection has another dport"
    busy, quiet = rows.map { |r| [r.last_sent_ms, r.last_recv_ms].min }
    assert_operator quiet, :>=, 400, "the connection silent since its request, sent over 0.45 s ago"
    assert_operator quiet - busy, :>=, 300, "the connection that got its answer and sent again is far fresher"
  end

  def test_nothing_found_is_unknown_not_zero
    watch = Rackbench::Sampling::Unanswered.new(port: @port, pids: -> { [] }, interval: 0.05).start
    sleep 0.1
    watch.stop
    assert_nil watch.ages_ms
  end

  # The kernel runs the port filter: the server side of each connection
  # (local port = the port) never reaches Ruby.
  def test_the_kernel_filters_by_remote_port
    @quiet = TCPSocket.new("127.0.0.1", @port)
    @quiet_peer = @server.accept
    dump = Rackbench::System::SockDiag
    mask = 1 << dump::STATES[:established]
    filtered = dump.dump_family(Socket::AF_INET, mask, false, @port)
    assert_equal [@port], filtered.map(&:dport)
    all = dump.dump_family(Socket::AF_INET, mask, false, nil)
    assert(all.any? { |r| r.sport == @port }, "unfiltered, the server side is there too")
  end

  def test_the_listen_queue_reads_through_the_same_dump
    @quiet = TCPSocket.new("127.0.0.1", @port) # completed by the kernel, not accepted
    # The client returns at the SYN-ACK; the server side queues it when the
    # last ACK is processed, a moment later on a busy machine.
    deadline = Rackbench::Clock.now + 2
    depth = Rackbench::System::ListenQueue.read(@port)
    while depth.depth.zero? && Rackbench::Clock.now < deadline
      sleep 0.01
      depth = Rackbench::System::ListenQueue.read(@port)
    end
    assert_equal 1, depth.depth
    assert_operator depth.limit, :>, 0
  end
end
