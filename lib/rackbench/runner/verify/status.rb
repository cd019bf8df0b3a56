# frozen_string_literal: true

require "cgi"
require_relative "../../process_control/error_line"

module Rackbench
  class Runner
    class Verify
      # Is the status what a benchmark of this endpoint should load? 2xx, or
      # one of the statuses passed with --expect-status. Returns a one-line
      # problem that says what answered instead, or nil.
      module Status
        OK = (200..299).freeze

        module_function

        def problem(res, expect: nil, server_log: nil)
          status = res.status
          return nil if expect ? expect.include?(status) : OK.cover?(status)
          return redirect(res) if status.between?(300, 399)
          return "status #{status}, but --expect-status asks for #{expect.join(' or ')}" if status < 400

          failure(res, server_log)
        end

        # A redirect: where it points and why that usually happens.
        def redirect(res)
          to = res.location ? "redirects to #{res.location}" : "is a redirect without a Location"
          "status #{res.status} #{to}: #{why_redirect(res.location)}, or pass --expect-status #{res.status} " \
            "to measure the redirect itself"
        end

        def why_redirect(location)
          if location.to_s.start_with?("https://")
            "the app sends http to https (Rails' config.force_ssl, on in production by default); for the benchmark " \
              "set config.force_ssl = false, or config.assume_ssl = true (as behind a TLS proxy)"
          else
            "the app redirects this path (a login page, a missing trailing slash?); load the page it points to " \
              "with --endpoint"
          end
        end

        # An error page: its <title> or first heading (an HTML page's first
        # line is "<!DOCTYPE html>"), and the server log's error line.
        def failure(res, server_log)
          text = "status #{res.status}: #{summary(res.body.to_s)}"
          return text unless server_log && res.status >= 500

          line = ProcessControl::ErrorLine.last(ProcessControl::ErrorLine.tail(server_log))
          line ? "#{text}; the server log says: #{line} (#{server_log})" : "#{text}; see #{server_log}"
        end

        def summary(body)
          html = body[%r{<title[^>]*>(.*?)</title>}im, 1] || body[%r{<h[1-3][^>]*>(.*?)</h[1-3]>}im, 1]
          text = html ? CGI.unescapeHTML(html.gsub(/<[^>]+>/, "")).gsub(/\s+/, " ") : body.lines.first.to_s
          text.strip.empty? ? "(empty body)" : text.strip[0, 120]
        end
      end
    end
  end
end
