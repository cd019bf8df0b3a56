# frozen_string_literal: true

require "json"

module Rackbench
  module Workload
    module Arena
      # Builds Rack 3 response triples: lowercase header names, a fresh mutable
      # headers Hash, an Array body of one String, and a content-length that is
      # always the body's bytesize (wrk counts a read error for a response
      # without one, so every arena response carries it).
      module Response
        TEXT = "text/plain; charset=utf-8"
        HTML = "text/html; charset=utf-8"
        JSON_TYPE = "application/json"

        module_function

        def text(body, status: 200, headers: {})
          build(status, TEXT, body, headers)
        end

        def html(body, status: 200)
          build(status, HTML, body, {})
        end

        # JSON object plus a trailing newline, so curl output stays readable.
        def json(object, status: 200)
          build(status, JSON_TYPE, "#{JSON.generate(object)}\n", {})
        end

        # One-line plain-text error message.
        def error(status, message, headers: {})
          text("#{message}\n", status: status, headers: headers)
        end

        def build(status, type, body, extra)
          headers = { "content-type" => type, "content-length" => body.bytesize.to_s }
          [status, headers.merge!(extra), [body]]
        end
      end
    end
  end
end
