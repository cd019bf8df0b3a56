# frozen_string_literal: true

require_relative "../sampling/profiler"
require_relative "../store/profiles"

module Rackbench
  class Runner
    # run --profile around one trial (Measurement): the profile started in
    # every serving process before the load, stopped the moment it ends, and
    # stored in profiles.jsonl only after the trial's own record is stored,
    # so a profile that fails (a process that cannot load stackprof, one that
    # never answers, a full disk) costs a warning, never a timed trial.
    class TrialProfile
      def self.for(context, instance, trial)
        return nil unless context.config[:profile] && instance

        new(context, instance, trial)
      end

      def initialize(context, instance, trial)
        @ctx = context
        @trial = trial
        @profiler = Sampling::Profiler.new(instance.dir, pids: -> { instance.workers.map(&:pid) }, root: context.app.root)
      end

      def start
        @profiler.start
        self
      rescue StandardError => e
        @failed = "could not start: #{e.message}"
        self
      end

      def stop
        @profiler.stop unless @failed
      rescue StandardError => e
        @failed = "could not stop: #{e.message}"
      end

      # record: the trial as stored. Returns the profile's warnings.
      def store(record)
        return [warning(@failed)] if @failed

        got = @profiler.collect
        Store::Profiles.new(@ctx.store.path, notice: @ctx.store.method(:notice)).append(entry(record, got))
        problems(got).map { |text| warning(text) }
      rescue StandardError => e
        [warning("was not stored: #{e.message}")]
      end

      private

      def entry(record, got)
        { "key" => record["key"], "setup" => record["setup"], "endpoint" => record["endpoint"],
          "concurrency" => record["concurrency"], "rate" => record["rate"], "repetition" => record["repetition"],
          "take" => record["take"], "requests" => record["requests"], "token" => got["token"],
          "processes" => got["processes"], "errors" => got["errors"], "missing" => got["missing"] }.compact
      end

      def problems(got)
        out = got["errors"].first(3)
        out << "no dump from server process(es) #{got['missing'].join(', ')} within #{Sampling::Profiler::STOP_WAIT} s" if got["missing"].any?
        out << "no server process profiled" if got["processes"].empty? && out.empty?
        out
      end

      def warning(text)
        "#{@trial.setup.label} #{@trial.endpoint} #{@trial.level_label}: the profile (--profile) #{text}; " \
          "the trial's figures are kept"
      end
    end
  end
end
