# frozen_string_literal: true

require "net/http"

module Rackbench
  module Server
    # One small HTTP GET with short timeouts, for readiness and verification.
    module HttpProbe
      Response = Struct.new(:status, :content_type, :body, :headers, keyword_init: true) do
        # True when the body's end is marked by the server closing the
        # connection (no Content-Length, not chunked).
        def close_delimited?
          !headers.key?("content-length") && headers["transfer-encoding"].to_s !~ /chunked/i
        end

        def connection_close?
          headers["connection"].to_s.casecmp?("close")
        end
      end
      FAILURES = [SystemCallError, IOError, Timeout::Error, Net::HTTPBadResponse, EOFError, SocketError].freeze

      module_function

      # Returns a Response, or nil when nothing answered. on_silence is
      # returned instead when the server accepted the connection but sent
      # nothing back within the timeout.
      def get(host, port, path, timeout: 2, on_silence: nil)
        http = Net::HTTP.new(host, port)
        http.open_timeout = timeout
        http.read_timeout = timeout
        http.max_retries = 0
        res = http.request_get(path)
        Response.new(status: res.code.to_i, content_type: res["content-type"].to_s, body: res.body.to_s,
                     headers: res.each_header.to_h)
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
