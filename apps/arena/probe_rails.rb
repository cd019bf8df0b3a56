# frozen_string_literal: true

module Rackbench
  module Workload
    module Arena
      # What the probe (Probe) adds in a Rails app, when the app has it:
      # - sql_ms, sql_count: wall time in "sql.active_record" events (the
      #   query, the adapter's work and the wait for the database);
      # - view_ms, view_count: wall time in "render_template.action_view"
      #   (a template and the partials and SQL inside it);
      #   both through ActiveSupport::Notifications' monotonic subscribers,
      #   summed per process whatever the thread;
      # - the Active Record connection pool, sampled by the probe's writer
      #   (10 Hz) from connection_pool.stat: pool_size (its last reading),
      #   pool_samples, pool_busy_sum, pool_waiting_sum (threads waiting for
      #   a connection, summed over the samples) and pool_waiting_samples
      #   (samples in which any thread waited).
      # Without ActiveSupport the view fields are absent; without Active
      # Record the SQL and pool fields are absent (never zero).
      class ProbeRails
        SQL = "sql.active_record"
        VIEW = "render_template.action_view"

        # notifications, pool: callables returning ActiveSupport::Notifications
        # and the Active Record pool, or nil; active_record: whether the app
        # has Active Record (its SQL events); the defaults look them up, tests give fakes.
        def initialize(notifications: -> { ::ActiveSupport::Notifications if defined?(::ActiveSupport::Notifications) },
                       pool: -> { ::ActiveRecord::Base.connection_pool if defined?(::ActiveRecord::Base) },
                       active_record: -> { defined?(::ActiveRecord::Base) ? true : false })
          @notifications = notifications
          @pool = pool
          @active_record = active_record
          @lock = Mutex.new
          @totals = {}
          @subscribed = false
        end

        # In the process's first request: the app is loaded by then. A
        # subscription made before a fork serves the forked process too.
        def start
          @lock = Mutex.new
          @totals = @totals.transform_values { 0 }
          subscribe unless @subscribed
        end

        def sample
          pool = @pool.call or return
          stat = pool.stat
          @lock.synchronize do
            add("pool_samples", 1)
            add("pool_busy_sum", stat[:busy].to_i)
            add("pool_waiting_sum", stat[:waiting].to_i)
            add("pool_waiting_samples", stat[:waiting].to_i.positive? ? 1 : 0)
            @totals["pool_size"] = stat[:size].to_i
          end
        rescue StandardError
          nil # no connection yet, or a pool being replaced: the next sample tries again
        end

        def fields
          @lock.synchronize { @totals.transform_values { |v| v.is_a?(Float) ? v.round(3) : v } }
        end

        private

        def subscribe
          notifications = @notifications.call
          return unless notifications

          @subscribed = true
          events = @active_record.call ? { SQL => "sql", VIEW => "view" } : { VIEW => "view" }
          events.each do |event, name|
            @lock.synchronize { @totals["#{name}_ms"] = 0.0; @totals["#{name}_count"] = 0 }
            timer(notifications, event) do |ms|
              @lock.synchronize { add("#{name}_ms", ms); add("#{name}_count", 1) }
            end
          end
        end

        # Yields each event's duration in ms (monotonic where ActiveSupport has it, 6.1+).
        def timer(notifications, event)
          if notifications.respond_to?(:monotonic_subscribe)
            notifications.monotonic_subscribe(event) { |_n, started, finished, _id, _p| yield 1000.0 * (finished - started) }
          else
            notifications.subscribe(event) { |_n, started, finished, _id, _p| yield 1000.0 * (finished - started) }
          end
        end

        def add(key, value)
          @totals[key] = @totals.fetch(key, 0) + value
        end
      end
    end
  end
end
