# frozen_string_literal: true

require_relative "../server"
require_relative "../sampling/probe_files"
require_relative "diagnostics"

module Rackbench
  class Runner
    # Before measuring: a setup whose threads per process exceed the app's
    # Active Record connection pool makes requests wait for a connection
    # (Stats::Verdict's "pool exhausted" under load). The pool's size is what
    # the in-process probe read inside the workers during the warm-up
    # (apps/arena/probe_rails.rb), so it is the pool the app really got,
    # whatever config/database.yml's ERB said. Nothing without the probe or
    # Active Record, and nothing for fibers (no thread holds a connection
    # for the length of a request there).
    module PoolCheck
      module_function

      # Once per session, after the first warm-up: the warning (or nil) from
      # what the probe wrote in the workers, read from the server's directory
      # (nothing when the probe wrote nothing).
      def after_warm_up(setup, server_dir)
        dir = Diagnostics.probe_dir(server_dir)
        return nil unless File.directory?(dir)

        warning(setup, Sampling::ProbeFiles.new(dir).read)
      end

      # setup: a Setup; readings: ProbeFiles#read ({pid => snapshot}); the warning or nil.
      def warning(setup, readings)
        size = readings.values.filter_map { |r| r["pool_size"] if r["pool_size"].to_i.positive? }.max
        return nil unless size && setup.threads.to_i > size
        return nil if Server::ADAPTERS[setup.server]&.fibers?(setup)

        "#{setup.label}: #{setup.threads} threads per process (the setup's label) share an Active Record pool of " \
          "#{size} connections per process (config/database.yml's pool:, in a Rails app usually " \
          "ENV[\"RAILS_MAX_THREADS\"], 5 by default), so requests may wait for a connection (Rails before 7.2 " \
          "holds one for a whole request, 7.2 and later while a query runs; the probe's pool samples say whether " \
          "any did, and then the verdict is \"pool exhausted\"); set the pool to #{setup.threads}, or run #{size} threads"
      end
    end
  end
end
