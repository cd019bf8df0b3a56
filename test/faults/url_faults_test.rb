# frozen_string_literal: true

require_relative "fault_helper"
require "openssl"

# --url to a server that cannot answer plain HTTP: a port nobody listens
# on, or an HTTPS server given as http://. Said in seconds, never after the
# whole --timeout.
class FaultUrlTest < Minitest::Test
  def free_port
    server = TCPServer.new("127.0.0.1", 0)
    server.addr[1]
  ensure
    server&.close
  end

  def run_against(url)
    started = Rackbench::Clock.now
    start_rackbench("run", "--url", url, "-e", "/", "-c", "1", "-d", "1", "--warmup", "0", "-o", File.join(tmpdir, "run"))
    @rb.wait(timeout: 60)
    Rackbench::Clock.now - started
  end

  def test_a_refused_connection_is_said_at_once
    took = run_against("http://127.0.0.1:#{free_port}/")
    assert_fault_outcome(exit_code: 1, on: :stdout,
                         message: /FAILED .*verification of \/ failed: connection refused: nothing listens on 127\.0\.0\.1:\d+/)
    assert_operator took, :<, 15, "said at once, not after the 30 s --timeout"
  end

  # A TLS server that takes a handshake and then waits, silent, as one
  # asked in plain HTTP may do.
  def test_http_to_an_https_port_is_said_within_seconds
    server = TCPServer.new("127.0.0.1", 0)
    ctx = tls_context
    acceptor = Thread.new do
      loop do
        Thread.new(server.accept) do |conn|
          OpenSSL::SSL::SSLSocket.new(conn, ctx).accept
          sleep 60
        rescue OpenSSL::SSL::SSLError, IOError, SystemCallError
          sleep 60 # waiting for a handshake that never comes
        ensure
          conn.close
        end
      end
    end
    took = run_against("http://127.0.0.1:#{server.addr[1]}/")
    assert_fault_outcome(exit_code: 1, on: :stdout,
                         message: /FAILED .*speaks HTTPS \(a TLS handshake succeeded\), not plain HTTP: give the URL as https:\/\//)
    assert_operator took, :<, 20, "said within seconds, not after the 30 s --timeout"
  ensure
    acceptor&.kill
    server&.close
  end

  def tls_context
    key = OpenSSL::PKey::RSA.new(2048)
    cert = OpenSSL::X509::Certificate.new
    cert.version = 2
    cert.serial = 1
    cert.subject = cert.issuer = OpenSSL::X509::Name.parse("/CN=127.0.0.1")
    cert.public_key = key.public_key
    cert.not_before = Time.now - 60
    cert.not_after = Time.now + 3600
    cert.sign(key, OpenSSL::Digest.new("SHA256"))
    OpenSSL::SSL::SSLContext.new.tap do |c|
      c.cert = cert
      c.key = key
    end
  end
end
