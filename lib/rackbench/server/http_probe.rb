# frozen_string_literal: true

require "net/http"

module Rackbench
  module Server
    # One small HTTP GET with short timeouts, for readiness and verification.
    module HttpProbe
      Response = Struct.new(:status, :content_type, :body, keyword_init: true)
      FAILURES = [SystemCallError, IOError, Timeout::Error, Net::HTTPBadResponse, EOFError, SocketError].freeze

      module_function

      # Returns a Response, or nil when nothing answered.
      def get(host, port, path, timeout: 2)
        http = Net::HTTP.new(host, port)
        http.open_timeout = timeout
        http.read_timeout = timeout
        http.max_retries = 0
        res = http.request_get(path)
        Response.new(status: res.code.to_i, content_type: res["content-type"].to_s, body: res.body.to_s)
      rescue *FAILURES
        nil
      ensure
        http&.finish if http&.started?
      end
    end
  end
end
