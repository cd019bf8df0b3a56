# frozen_string_literal: true

require_relative "../measurement"
require_relative "../../workload/arena"

module Rackbench
  class Runner
    class Session
      # Where a session's server lives and answers: the address it listens
      # on (--bind), its directory under the run's logs, the path that says
      # it is ready, and the URL of an endpoint on whatever serves it (the
      # proxy in front, else the server, else --url).
      class Place
        def initialize(context, setup, repetition)
          @ctx = context
          @setup = setup
          @rep = repetition
        end

        # served: the proxy in front or the server (nil: --url, nothing booted).
        def url_of(endpoint, served)
          base = served ? served.url("") : @ctx.config[:url]
          base + @ctx.plan.path_of(endpoint)
        end

        # The address the servers (or nginx in front) listen on: --bind.
        def bind
          @ctx.config[:bind] || "127.0.0.1"
        end

        def server_dir
          File.join(@ctx.store.logs_dir, "#{Measurement.slug(@setup.label)}-r#{@rep}")
        end

        def ready_path
          @ctx.app.arena? ? Workload::Arena::READY_PATH : "/"
        end
      end
    end
  end
end
