# frozen_string_literal: true

require "net/http"
require "uri"
require_relative "clock"
require_relative "halt"

module Rackbench
  module Workload
    module Arena
      # One GET to the upstream stub (lib/rackbench/workload/upstream.rb) named
      # by RACKBENCH_UPSTREAM_URL, on a fresh connection per request (no pool
      # shared between server threads). Failures become Halt: 503 when the
      # variable is unset or not an http URL, 502 when the upstream fails.
      module UpstreamClient
        ENV_KEY = "RACKBENCH_UPSTREAM_URL"
        OPEN_TIMEOUT = 5
        READ_TIMEOUT = 65 # above the 60 s a /pause may take, for stubs mimicking one
        Fetched = Struct.new(:url, :status, :body, :ms, keyword_init: true)

        module_function

        def fetch(env = ENV)
          uri = upstream_uri(env[ENV_KEY])
          started = Clock.now
          response = get(uri)
          unless response.is_a?(Net::HTTPSuccess)
            raise Halt.new(502, "upstream #{uri} answered #{response.code} #{response.message}".strip)
          end

          Fetched.new(url: uri.to_s, status: response.code.to_i, body: response.body.to_s, ms: Clock.ms_since(started))
        end

        def upstream_uri(value)
          if value.nil? || value.empty?
            raise Halt.new(503, "#{ENV_KEY} is not set; rackbench starts the upstream stub " \
                                "for the network-io endpoints and sets it (e.g. http://127.0.0.1:PORT/)")
          end
          uri = URI(value)
          return uri if uri.is_a?(URI::HTTP) && uri.host

          raise Halt.new(503, "#{ENV_KEY} must be an http:// URL, got #{value.inspect}")
        rescue URI::InvalidURIError
          raise Halt.new(503, "#{ENV_KEY} must be an http:// URL, got #{value.inspect}")
        end

        def get(uri)
          Net::HTTP.start(uri.host, uri.port, use_ssl: uri.scheme == "https",
                                              open_timeout: OPEN_TIMEOUT, read_timeout: READ_TIMEOUT) do |http|
            http.request(Net::HTTP::Get.new(uri))
          end
        rescue StandardError => e
          raise Halt.new(502, "upstream #{uri} failed: #{e.class} (#{e.message.lines.first.to_s.strip})")
        end
      end
    end
  end
end
