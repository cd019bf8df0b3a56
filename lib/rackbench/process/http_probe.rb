# frozen_string_literal: true

require "net/http"

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
    module HttpProbe
      Response = Struct.new(:status, :content_type, :body, :headers, :http_version, keyword_init: true) do
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
      # nothing back within the timeout.
      def get(host, port, path, timeout: 2, on_silence: nil)
        http = Net::HTTP.new(host, port)
        http.open_timeout = timeout
        http.read_timeout = timeout
        http.max_retries = 0
        http.start
        res = http.request_get(path, HEADERS)
        Response.new(status: res.code.to_i, content_type: res["content-type"].to_s, body: res.body.to_s,
                     headers: res.each_header.to_h, http_version: res.http_version)
      rescue Net::ReadTimeout
        on_silence
      rescue *FAILURES
        nil
      ensure
        http&.finish if http&.started?
      end
    end
  end
end
