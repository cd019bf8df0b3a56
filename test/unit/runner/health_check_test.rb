# frozen_string_literal: true

require "test_helper"
require "socket"
require "rackbench/runner/health_check"

# The health checker against a tiny in-process HTTP server on 127.0.0.1
# whose answer time the test sets.
class HealthCheckTest < Minitest::Test
  # A server on 127.0.0.1 whose every connection the block answers.
  def serve_with(&answer)
    server = TCPServer.new("127.0.0.1", 0)
    thread = Thread.new do
      loop do
        Thread.new(server.accept) do |c|
          answer.call(c)
        rescue IOError, SystemCallError
          nil
        ensure
          c.close
        end
      end
    rescue IOError
      nil
    end
    [server, thread]
  end

  def serve(delay:, status: 200)
    serve_with do |c|
      while c.gets("\r\n\r\n")
        sleep delay
        c.write("HTTP/1.1 #{status} X\r\ncontent-length: 2\r\n\r\nok")
      end
    end
  end

  def test_counts_checks_and_their_latency
    server, thread = serve(delay: 0.05)
    check = Rackbench::Runner::HealthCheck.new(host: "127.0.0.1", port: server.addr[1], path: "/health",
                                               interval: 0.1, timeout: 1).start
    wait_for(check) { |now| now["checks"] >= 4 }
    s = check.stop
    assert_operator s["checks"], :>=, 4
    assert_equal 0, s["failures"]
    assert_operator s["median_ms"], :>=, 50
  ensure
    server&.close
    thread&.kill
  end

  # stop wakes the thread from its pause: a trial does not wait out the
  # interval (here 5 s) before its record is stored.
  def test_stop_does_not_wait_out_the_interval
    server, thread = serve(delay: 0)
    check = Rackbench::Runner::HealthCheck.new(host: "127.0.0.1", port: server.addr[1], path: "/health",
                                               interval: 5, timeout: 1).start
    wait_for(check) { |now| now["checks"] >= 1 }
    started = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    s = check.stop
    assert_operator Process.clock_gettime(Process::CLOCK_MONOTONIC) - started, :<, 2
    assert_equal 1, s["checks"]
  ensure
    server&.close
    thread&.kill
  end

  def test_a_check_slower_than_the_timeout_fails
    server, thread = serve(delay: 0.4)
    check = Rackbench::Runner::HealthCheck.new(host: "127.0.0.1", port: server.addr[1], path: "/health",
                                               interval: 0.1, timeout: 0.2).start
    wait_for(check) { |now| now["failure_kinds"]["timeout"].to_i >= 1 }
    s = check.stop
    assert_operator s["failures"], :>=, 1
    assert_operator s["failure_kinds"]["timeout"], :>=, 1
  ensure
    server&.close
    thread&.kill
  end

  def test_error_statuses_fail
    server, thread = serve(delay: 0, status: 503)
    check = Rackbench::Runner::HealthCheck.new(host: "127.0.0.1", port: server.addr[1], path: "/health",
                                               interval: 0.05, timeout: 1).start
    wait_for(check) { |now| now["failure_kinds"]["status 503"].to_i >= 2 }
    s = check.stop
    assert_operator s["failure_kinds"]["status 503"], :>=, 2
  ensure
    server&.close
    thread&.kill
  end

  # Waits (5 s at most) until the running check's summary satisfies the
  # block: a fixed sleep counts fewer checks on a busy machine.
  def wait_for(check)
    deadline = Process.clock_gettime(Process::CLOCK_MONOTONIC) + 5
    sleep 0.02 until yield(check.summary) || Process.clock_gettime(Process::CLOCK_MONOTONIC) > deadline
  end

  # A health path that streams without end is a failed check within the
  # timeout, read bounded: never a thread stuck reading it.
  def test_an_endless_body_is_a_failed_check
    server, thread = serve_with do |c|
      c.gets("\r\n\r\n")
      c.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n")
      chunk = "x" * 16_384
      loop { c.write("#{chunk.bytesize.to_s(16)}\r\n#{chunk}\r\n") }
    end
    check = Rackbench::Runner::HealthCheck.new(host: "127.0.0.1", port: server.addr[1], path: "/health",
                                               interval: 0.1, timeout: 1).start
    wait_for(check) { |now| now["failures"] >= 1 }
    s = check.stop
    assert_operator s["failures"], :>=, 1
    assert_equal 0, s["checks"] - s["failures"], "no endless check passed"
  ensure
    server&.close
    thread&.join(2)
  end
end
