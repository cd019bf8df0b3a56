# frozen_string_literal: true

module Rackbench
  class Runner
    class Session
      # What a session takes from its run: the plan and its config, the
      # store, the load engine, the listener, the environment, the progress,
      # the app; endpoint_failures: the run's EndpointFailures, shared by its
      # sessions; tls: the run's certificate (Tls::Certificate) when it
      # serves HTTPS (--tls); slow_stops: the run's SlowStops, shared too.
      Context = Struct.new(:plan, :config, :store, :engine, :listener, :env, :progress, :app, :endpoint_failures, :tls,
                           :slow_stops, keyword_init: true) do
        # The same context with another engine and some settings changed
        # (a search's level: its own engine, duration or provisioning).
        def with(engine, **config)
          dup.tap do |c|
            c.engine = engine
            c.config = self.config.merge(config).freeze
          end
        end
      end
    end
  end
end
