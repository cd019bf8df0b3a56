# frozen_string_literal: true

require "tempfile"
require_relative "../process_control/child"
require_relative "../error"

module Rackbench
  module Load
    # The plumbing an engine that drives an external load program shares:
    # finding the program, probing its version, running it to completion
    # against a deadline, and checking the numbers it is given. Flags,
    # parsing and pitfalls stay in each engine.
    #
    # The including class sets @binary (a name looked up on PATH, or a path)
    # and defines the private method #program, the program's name used in
    # messages ("wrk", "ab", "siege").
    module Program
      GRACE_S = 10 # added to duration + timeout before a run is stopped

      # CPU ids the program runs on (--cpus client=...; nil: anywhere).
      attr_accessor :cpus

      def available?
        !executable.nil?
      end

      # The version string, probed once; nil when the program is missing.
      def version
        return @version if defined?(@version)

        @version = available? ? probe_version : nil
      end

      private

      # The program's absolute path, or nil when it cannot be run.
      def executable
        return (File.executable?(@binary) ? File.expand_path(@binary) : nil) if @binary.include?(File::SEPARATOR)

        ENV.fetch("PATH", "").split(File::PATH_SEPARATOR).map { |dir| File.join(dir, @binary) }
           .find { |path| File.file?(path) && File.executable?(path) }
      end

      # Runs `@binary *args` and returns the first capture of pattern in what
      # it printed. Its exit status is ignored (`wrk --version` exits 1).
      def version_from(args, pattern, env: {})
        Tempfile.create("rackbench-#{program}-version") do |file|
          child = ProcessControl::Child.spawn([@binary, *args], env: env, log_path: file.path)
          begin
            child.wait(5)
          ensure
            child.stop("TERM", timeout: 2)
          end
          File.read(file.path)[pattern, 1]
        end
      end

      # A load generator that did not exit by its deadline (stopped).
      class Hung < Error; end

      # Runs argv to completion and returns what it wrote to log_path during
      # this run (log_path is appended to, so earlier content is skipped).
      # On a non-zero exit, raises Error with the message the block makes of
      # that output. A program that ignores TERM is KILLed by Child#stop.
      def execute(argv, deadline_s, log_path, env: {}, chdir: nil)
        offset = File.exist?(log_path) ? File.size(log_path) : 0
        child = ProcessControl::Child.spawn(argv, env: env, log_path: log_path, chdir: chdir, cpus: @cpus)
        finished = child.wait(deadline_s)
        child.stop("TERM", timeout: 5) unless finished
        raise Hung, "#{program} did not finish within #{deadline_s} s (duration + timeout + #{GRACE_S} s); " \
                     "stopped it; see #{log_path}" unless finished

        output = File.read(log_path, mode: "rb").byteslice(offset..).to_s.scrub
        raise Error, yield(output) unless succeeded?(child)

        output
      ensure
        child&.stop("TERM", timeout: 5)
      end

      def succeeded?(child)
        child.status.is_a?(Process::Status) && child.status.success?
      end

      def whole(value, label)
        return value if value.is_a?(Integer) && value.positive?

        raise UsageError, "#{program} #{label} must be a whole number above 0, got #{value.inspect}"
      end

      # Seconds rounded up: the programs take whole seconds only.
      def seconds(value, label)
        return value.to_r.ceil if value.is_a?(Numeric) && value.positive?

        raise UsageError, "#{program} #{label} must be a number of seconds above 0, got #{value.inspect}"
      end

      # A finite number above 0, kept as given; the message names the engine
      # (#name), not the program.
      def positive(value, label)
        return value if value.is_a?(Numeric) && value.positive? && value.to_f.finite?

        raise UsageError, "#{name} #{label} must be a number above 0, got #{value.inspect}"
      end
    end
  end
end
