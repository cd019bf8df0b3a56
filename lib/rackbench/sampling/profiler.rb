# frozen_string_literal: true

require "fileutils"
require "securerandom"
require_relative "../deadline"
require_relative "../run_file"
require_relative "../runtime/flags"
require_relative "profile_dump"

module Rackbench
  module Sampling
    # run --profile, rackbench's side of runtime/in_server_profile.rb: one
    # trial profiled in every server process that serves it.
    #
    # #start writes "start TOKEN" into the boot's profile directory and waits
    # (up to START_WAIT s) until each serving process says it started (or why
    # it cannot); the load begins after that, so the profile holds the whole
    # load window. #stop writes "stop TOKEN" the moment the load ends; #collect
    # then waits (up to STOP_WAIT s) for each started process's dump and reads
    # them. The profiled trials ARE the timed ones (docs/running.md, "--profile"):
    # both sides of a comparison are profiled alike in the same interleaved
    # rounds, and what sampling costs (bench/profile_cost.rb) is paid by both.
    # Nothing here raises into the trial: a process that never answers is
    # listed in "missing", one that could not profile in "errors".
    class Profiler
      START_WAIT = 3.0
      STOP_WAIT = 10.0

      # dir: the boot's server directory; pids: a callable giving the pids
      # that serve (re-read while waiting); root: the app's root (ProfileDump).
      def initialize(dir, pids:, root:)
        @dir = Runtime::Flags.profile_dir(dir)
        @pids = pids
        @root = root
      end

      def start
        @token = SecureRandom.hex(8)
        @out = File.join(@dir, @token)
        FileUtils.mkdir_p(@out)
        RunFile.replace(File.join(@dir, "control"), "start #{@token}\n")
        Deadline.in(START_WAIT).wait_until(every: 0.02) { @pids.call.all? { |pid| answered?(pid, %w[on err]) } }
        self
      end

      def stop
        RunFile.replace(File.join(@dir, "control"), "stop #{@token}\n") if @token
      end

      # {"token", "processes" => [ProfileDump hashes], "errors" => [texts], "missing" => [pids]}
      def collect
        started = -> { Dir.glob(File.join(@out, "*.on")).map { |f| File.basename(f, ".on").to_i } }
        Deadline.in(STOP_WAIT).wait_until(every: 0.05) { started.call.all? { |pid| answered?(pid, %w[prof]) } }
        processes = Dir.glob(File.join(@out, "*.prof")).sort.map { |f| ProfileDump.parse(File.read(f), root: @root) }
        errors = Dir.glob(File.join(@out, "*.err")).sort.map { |f| "pid #{File.basename(f, '.err')}: #{File.read(f).strip}" }
        done = processes.map { |p| p["pid"] }
        { "token" => @token, "processes" => processes, "errors" => errors,
          "missing" => (started.call + @pids.call).uniq.reject { |pid| done.include?(pid) || errors.any?(/\Apid #{pid}:/) } }
      rescue SystemCallError => e
        { "token" => @token, "processes" => [], "errors" => ["the profile could not be read: #{e.message}"], "missing" => [] }
      end

      private

      def answered?(pid, exts)
        exts.any? { |ext| File.exist?(File.join(@out, "#{pid}.#{ext}")) }
      end
    end
  end
end
