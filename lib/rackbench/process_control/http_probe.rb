# frozen_string_literal: true

require "net/http"
require "openssl"
require "socket"
require_relative "../deadline"

module Rackbench
  module ProcessControl
    # One small HTTP GET with short timeouts, for readiness and verification.
    #
    # Sent as the load generators send theirs: HTTP/1.1 with no Connection
    # header (keep-alive asked for), Host, and no Accept-Encoding (wrk sends
    # none, so the server must not compress for the probe either). Net::HTTP
    # adds "Connection: close" to a request made without a started session,
    # and a server echoes it; the session is started first so that what the
    # response says about keep-alive is what wrk's connections will get.
    #
    # Bounded (an app may answer with an endless body): the whole exchange
    # has one deadline (timeout, monotonic clock) checked as each chunk
    # arrives, besides Net::HTTP's per-read timeout; at most KEEP bytes of
    # the body are kept, and reading stops after READ_MAX bytes. Such a
    # response is returned with #incomplete saying why, so readiness still
    # sees an answer and verification can fail it in words. A reply that is
    # not HTTP at all is returned with #invalid quoting its first bytes
    # (escaped), never mistaken for silence.
    #
    # tls: the run's certificate (Tls::Certificate, --tls): the request goes
    # over HTTPS and the server must present that certificate (it is the
    # only authority trusted, the host checked against its names). A failed
    # handshake is returned with #invalid saying so (a server answering
    # plain HTTP on its TLS port, say), never taken for silence.
    module HttpProbe
      KEEP = 1 << 20      # body bytes kept (1 MiB)
      READ_MAX = 8 << 20  # body bytes read before giving up on its end (8 MiB)

      # tls: the negotiated TLS ({"version", "cipher"}) when the request went over HTTPS;
      # handshake: why the TLS handshake failed (then invalid says so too).
      Response = Struct.new(:status, :content_type, :body, :headers, :http_version, :incomplete, :invalid, :tls, :handshake,
                            keyword_init: true) do
        # True when the body's end is marked by the server closing the
        # connection (no Content-Length, not chunked).
        def close_delimited?
          !headers.key?("content-length") && headers["transfer-encoding"].to_s !~ /chunked/i
        end

        # True when the server ends the connection after this response to a
        # keep-alive request: "Connection: close", or an HTTP/1.0 answer that
        # does not offer keep-alive.
        def connection_close?
          connection = headers["connection"].to_s
          return true if connection.casecmp?("close")

          http_version == "1.0" && !connection.casecmp?("keep-alive")
        end

        def location
          headers["location"]
        end
      end
      FAILURES = [SystemCallError, IOError, Timeout::Error, Net::HTTPBadResponse, EOFError, SocketError].freeze
      HEADERS = { "accept-encoding" => "identity", "accept" => "*/*", "user-agent" => "rackbench" }.freeze

      module_function

      # Returns a Response, or nil when nothing answered. on_silence is
      # returned instead when the server accepted the connection but sent
      # nothing back within the timeout; on_refused when nothing listens on
      # the port (the connection refused); on_closed when the server closed
      # the connection (or reset it) before any answer.
      def get(host, port, path, timeout: 2, on_silence: nil, on_refused: nil, on_closed: nil, tls: nil)
        deadline = Deadline.in(timeout)
        http = Net::HTTP.new(host, port)
        http.open_timeout = timeout
        http.read_timeout = timeout
        http.max_retries = 0
        secure(http, tls) if tls
        http.start
        got = nil
        body = +""
        incomplete = nil
        # Leaving the block early (an unfinished body) skips the rest of the
        # response; the ensure below closes the connection it was on.
        catch(:stop) do
          http.request_get(path, HEADERS) do |res|
            got = res
            incomplete = read_bounded(res, body, deadline, timeout)
            throw :stop if incomplete
          end
        end
        response(got, body, incomplete, negotiated(http))
      rescue Net::ReadTimeout
        got ? response(got, body, "no more bytes within #{timeout} s (#{body.bytesize} read)") : on_silence
      rescue Net::HTTPBadResponse => e
        Response.new(headers: {}, body: "", invalid: e.message.sub(/\Awrong status line: /, "")[0, 120])
      rescue OpenSSL::SSL::SSLError => e
        why = e.message.sub(/\ASSL_connect returned=\d+ errno=\d+ peeraddr=\S+ state=/, "")[0, 120]
        Response.new(headers: {}, body: "", invalid: "a failed TLS handshake (#{why})", handshake: why)
      rescue Errno::ECONNREFUSED
        on_refused
      rescue EOFError, Errno::ECONNRESET, Errno::EPIPE
        got ? nil : on_closed
      rescue *FAILURES
        nil
      ensure
        http&.finish if http&.started?
      end

      # True when a TLS handshake with host:port completes within timeout
      # (its certificate not checked): a server that speaks HTTPS, which a
      # plain HTTP request may leave waiting for a handshake in silence.
      def speaks_tls?(host, port, timeout: 2)
        deadline = Deadline.in(timeout)
        socket = Socket.tcp(host, port, connect_timeout: timeout)
        ssl = OpenSSL::SSL::SSLSocket.new(socket, OpenSSL::SSL::SSLContext.new.tap { |c| c.verify_mode = OpenSSL::SSL::VERIFY_NONE })
        wait_handshake(ssl, socket, deadline)
      rescue *FAILURES, OpenSSL::SSL::SSLError
        false
      ensure
        ssl&.close rescue nil
        socket&.close unless socket&.closed?
      end

      # Goes on with a handshake that waits for the socket; false at the deadline.
      def wait_handshake(ssl, socket, deadline)
        loop do
          return false if deadline.over?

          left = deadline.left

          ready = ssl.connect_nonblock(exception: false)
          return true if ready.is_a?(OpenSSL::SSL::SSLSocket)

          ready == :wait_writable ? socket.wait_writable(left) : socket.wait_readable(left)
        end
      end

      # tls without a cert_path (Tls::UNCHECKED: a --url server's own certificate): not checked.
      def secure(http, tls)
        http.use_ssl = true
        http.verify_mode = tls.cert_path ? OpenSSL::SSL::VERIFY_PEER : OpenSSL::SSL::VERIFY_NONE
        http.ca_file = tls.cert_path if tls.cert_path
      end

      # Reads res's body into body (at most KEEP bytes kept) until deadline
      # (a Deadline, timeout seconds from the request); returns nil when it
      # ended, or why it was left unfinished.
      def read_bounded(res, body, deadline, timeout)
        read = 0
        catch(:cut) do
          res.read_body do |chunk|
            read += chunk.bytesize
            body << chunk.byteslice(0, KEEP - body.bytesize) if body.bytesize < KEEP
            throw :cut, "over #{READ_MAX >> 20} MiB without ending" if read > READ_MAX
            throw :cut, "still sending after #{timeout} s (#{read} bytes)" if deadline.over?
          end
          nil
        end
      end

      def response(res, body, incomplete, tls = nil)
        return nil unless res

        Response.new(status: res.code.to_i, content_type: res["content-type"].to_s, body: body,
                     headers: res.each_header.to_h, http_version: res.http_version, incomplete: incomplete, tls: tls)
      end

      # The TLS version and cipher the session agreed, nil over plain HTTP.
      def negotiated(http)
        io = http.instance_variable_get(:@socket)&.io
        return nil unless io.is_a?(OpenSSL::SSL::SSLSocket)

        { "version" => io.ssl_version, "cipher" => io.cipher&.first }
      end
    end
  end
end
