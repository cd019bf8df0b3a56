# frozen_string_literal: true

require "minitest/autorun"
require "net/http"
require "rbconfig"
require "socket"
require_relative "../../../lib/rackbench/workload/upstream"
require_relative "../../support/waits"

# The upstream stub, spawned for real as `ruby upstream.rb …` in its own
# process group; every test kills and reaps it in ensure.
class UpstreamTest < Minitest::Test
  include Rackbench::Waits
  SCRIPT = File.expand_path("../../../lib/rackbench/workload/upstream.rb", __dir__)
  READY_TIMEOUT = 10
  Upstream = Rackbench::Workload::Upstream

  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  def now
    Process.clock_gettime(Process::CLOCK_MONOTONIC)
  end

  # Yields [port, pid] once the stub has printed its readiness line.
  def with_stub(delay: 0.0, bytes: 1024)
    port = free_port
    reader, writer = IO.pipe
    argv = [RbConfig.ruby, SCRIPT, "--port", port.to_s, "--delay", delay.to_s, "--bytes", bytes.to_s]
    pid = Process.spawn(*argv, pgroup: true, in: File::NULL, out: writer, err: File::NULL)
    writer.close
    assert reader.wait_readable(READY_TIMEOUT), "stub printed nothing within #{READY_TIMEOUT}s"
    assert_equal "upstream listening on 127.0.0.1:#{port}", reader.gets.to_s.chomp, "its one stdout line"
    yield port, pid
  ensure
    kill_and_reap(pid)
    reader&.close
  end

  def kill_and_reap(pid)
    return unless pid

    begin
      Process.kill("KILL", -pid)
    rescue Errno::ESRCH
      nil
    end
    begin
      Process.wait(pid)
    rescue Errno::ECHILD
      nil
    end
  end

  # Reads one response's status line and headers from a raw socket.
  def read_response_head(socket)
    status = socket.gets
    headers = {}
    while (line = socket.gets) && line != "\r\n"
      name, value = line.split(":", 2)
      headers[name.downcase] = value.strip
    end
    [status, headers]
  end

  def read_response(socket)
    status, headers = read_response_head(socket)
    [status, headers, socket.read(Integer(headers["content-length"]))]
  end

  def test_get_waits_the_delay_and_returns_the_bytes
    with_stub(delay: 0.05, bytes: 5000) do |port, _pid|
      started = now
      response = Net::HTTP.get_response(URI("http://127.0.0.1:#{port}/"))
      assert_operator now - started, :>=, 0.05
      assert_equal "200", response.code
      assert_equal 5000, response.body.bytesize
      assert_equal "text/html; charset=utf-8", response["content-type"]
      assert_equal "5000", response["content-length"]
      assert_equal Upstream.body(5000), response.body
    end
  end

  def test_keep_alive_serves_several_requests_on_one_connection
    with_stub(bytes: 300) do |port, _pid|
      TCPSocket.open("127.0.0.1", port) do |socket|
        2.times do
          socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
          status, headers, body = read_response(socket)
          assert_equal "HTTP/1.1 200 OK\r\n", status
          assert_equal "keep-alive", headers["connection"]
          assert_equal 300, body.bytesize
        end
        socket.write("HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, headers = read_response_head(socket)
        assert_equal "HTTP/1.1 200 OK\r\n", status
        assert_equal "close", headers["connection"]
        assert_nil socket.read(1), "HEAD has no body and Connection: close closes"
      end
    end
  end

  def test_term_exits_cleanly
    with_stub do |_port, pid|
      Process.kill("TERM", pid)
      deadline = now + 5
      status = nil
      until status || now > deadline
        status = Process.wait2(pid, Process::WNOHANG)&.last
        sleep 0.01 unless status
      end
      assert status&.success?, "expected exit 0 after TERM, got #{status.inspect}"
    end
  end

  def test_missing_port_is_a_usage_error
    _out, err, status = capture_with_timeout(RbConfig.ruby, SCRIPT, "--bytes", "10", timeout: 30)
    assert_equal 2, status.exitstatus
    assert_includes err, "Error: missing argument: --port"
  end

  def test_body_is_exact_and_deterministic
    [0, 10, 93, 500, 4096, 100_000].each do |bytes|
      body = Upstream.body(bytes)
      assert_equal bytes, body.bytesize
      assert_equal body, Upstream.body(bytes)
    end
    assert Upstream.body(500).end_with?("</body></html>\n")
  end
end
