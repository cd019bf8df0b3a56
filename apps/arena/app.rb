# frozen_string_literal: true

require_relative "basic"
require_relative "fibonacci"
require_relative "halt"
require_relative "network_io"
require_relative "pause"
require_relative "pi"
require_relative "random_mix"
require_relative "render"
require_relative "response"
require_relative "server_info"

module Rackbench
  module Workload
    module Arena
      # The arena's Rack app: a tiny router over one module per endpoint family.
      #
      # A path is "/NAME" or "/NAME/PARAM"; NAME is looked up in ROUTES (a
      # Hash, so routing costs the same for every endpoint) and the route says
      # whether it takes PARAM. Unknown paths → 404; known paths with a method
      # other than GET/HEAD → 405; Halt raised by an endpoint → its status
      # with a one-line message. HEAD runs the endpoint and drops the body
      # (content-length kept), as Rack::Head does.
      class App
        Route = Struct.new(:endpoint, :param)

        ROUTES = {
          "hello" => Route.new(Hello, false),
          "health" => Route.new(Health, false),
          "fibonacci" => Route.new(Fibonacci, true),
          "template-render" => Route.new(TemplateRender, false),
          "pause" => Route.new(Pause, true),
          "pause-and-render" => Route.new(PauseAndRender, true),
          "network-io" => Route.new(NetworkIo, false),
          "network-io-and-render" => Route.new(NetworkIoAndRender, false),
          "pi" => Route.new(Pi, true),
          "server" => Route.new(ServerInfo, false),
          "random" => Route.new(RandomMix, false)
        }.freeze
        METHODS = %w[GET HEAD].freeze

        def call(env)
          method = env["REQUEST_METHOD"]
          response = dispatch(env, method)
          method == "HEAD" ? head(response) : response
        end

        private

        def dispatch(env, method)
          name, param = env["PATH_INFO"].to_s.delete_prefix("/").split("/", 2)
          route = ROUTES[name]
          return not_found(env) if route.nil? || route.param == param.nil?
          return not_allowed(method) unless METHODS.include?(method)

          route.param ? route.endpoint.call(env, param) : route.endpoint.call(env)
        rescue Halt => e
          Response.error(e.status, e.message)
        end

        def head(response)
          status, headers, body = response
          body.close if body.respond_to?(:close)
          [status, headers, []]
        end

        def not_found(env)
          Response.error(404, "no arena endpoint at #{env['PATH_INFO'].to_s[0, 80].inspect}; " \
                              "try /hello, /fibonacci/25, /template-render, /pause/0.05, /pi/5000, /server, /random")
        end

        def not_allowed(method)
          Response.error(405, "method #{method.to_s[0, 20].inspect} not allowed; the arena accepts GET and HEAD",
                         headers: { "allow" => "GET, HEAD" })
        end
      end
    end
  end
end
