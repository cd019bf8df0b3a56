# frozen_string_literal: true

require "etc"
require_relative "../error"

module Rackbench
  module Server
    # Puma's newer knobs as setup words, each a line of the generated config
    # (as read in Puma's lib/puma/dsl.rb and History.md):
    #
    #   fibers   fiber_per_request (7.0): each request runs in a fresh Fiber
    #            on its thread, for clean fiber locals and storage. Requests
    #            still hold a thread each: slots stay workers x threads.
    #   io:N     max_io_threads N (8.0): a request the app marks IO-bound
    #            (env["puma.mark_as_io_bound"].call) stops counting against
    #            `threads`, so up to N more threads run such requests per
    #            process. Requests the app does not mark get nothing from it.
    #   auto:T   workers :auto (7.2), T threads: Puma forks one worker per
    #            CPU it sees (concurrent-ruby's available_processor_count:
    #            the CPUs it may run on, capped by a cgroup CPU quota).
    #            rackbench counts the same here, before the boot, to know the
    #            workers to find (a setup pinned with --cpus would count
    #            fewer: refused, ServerCheck).
    module PumaKnobs
      # word => [Puma version that has it, the config line's name]
      SINCE = { "fibers" => ["7.0", "fiber_per_request"], "io" => ["8.0", "max_io_threads"],
                "auto" => ["7.2", "workers :auto"] }.freeze
      WORDS = ["fibers", "io:N", "auto[:T]"].freeze
      MAX_IO = 1024

      module_function

      # {option => value} (and :workers/:threads for "auto") or nil.
      def word(word)
        case word
        when "fibers" then { "fibers" => true }
        when /\Aio:(\d+)\z/ then { "io" => Integer(Regexp.last_match(1), 10) }
        when /\Aauto(?::(\d+))?\z/
          t = Regexp.last_match(1)
          { "auto" => true, workers: auto_workers }.merge(t ? { threads: Integer(t, 10) } : {})
        end
      end

      def check!(text, options)
        io = options["io"]
        return if io.nil? || io.between?(1, MAX_IO)

        raise UsageError, "setup #{text.inspect}: io:N is Puma's max_io_threads, 1..#{MAX_IO} (got #{io})"
      end

      # The config lines a setup's knobs write (rackbench's file and a deployment's).
      def lines(setup)
        out = []
        out << "workers :auto # one per CPU Puma sees (#{setup.workers} here)" if setup.option("auto")
        out << "fiber_per_request # a fresh Fiber per request (requests still hold a thread each)" if setup.option("fibers")
        out << "max_io_threads #{setup.option('io')} # for requests the app marks with env[\"puma.mark_as_io_bound\"]" if setup.option("io")
        out
      end

      # Why this Puma cannot run the setup's knobs, or nil. version: Puma's
      # (nil: unknown, taken as current); app: the app under test; cpus:
      # --cpus, with which Puma would count only the CPUs it is pinned to.
      def unsupported(setup, version, app, cpus: nil)
        SINCE.each do |knob, (since, name)|
          next unless setup.option(knob) && version && Gem::Version.new(version) < Gem::Version.new(since)

          where = app&.bundled? ? "the app's bundle has Puma #{version}" : "Puma #{version} is installed here"
          return "setup #{setup.label.inspect}: #{knob} (Puma's #{name}) needs Puma >= #{since}, but #{where}; " \
                 "upgrade Puma or drop the word"
        end
        if setup.option("auto") && cpus
          return "setup #{setup.label.inspect}: Puma's workers :auto would count only the CPUs --cpus pins it to, " \
                 "not the #{setup.workers} rackbench counts; write \"puma xN:#{setup.threads}\" with --cpus"
        end
        return nil unless setup.option("auto") && app&.bundled? && !app.locked_version("concurrent-ruby")

        "setup #{setup.label.inspect}: Puma's workers :auto needs the concurrent-ruby gem, which the app's bundle lacks; " \
          "add it to #{app.gemfile} or write \"puma x#{setup.workers}:#{setup.threads}\""
      end

      # Puma's count for workers :auto, as Puma computes it (floor, at least 1).
      def auto_workers
        require "concurrent/utility/processor_counter"
        [Integer(::Concurrent.available_processor_count), 1].max
      rescue LoadError
        Etc.nprocessors
      end
    end
  end
end
