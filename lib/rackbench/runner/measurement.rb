# frozen_string_literal: true

require_relative "../clock"
require_relative "trial_record"

module Rackbench
  class Runner
    # One trial: drive the load engine at one level against one URL, then
    # store the record at once and tell the listeners.
    class Measurement
      def self.slug(text)
        text.gsub(/[^A-Za-z0-9.]+/, "_").gsub(/\A_|_\z/, "")
      end

      def initialize(trial:, url:, verification:, instance:, context:)
        @trial = trial
        @url = url
        @verification = verification
        @instance = instance
        @ctx = context
        @config = context.config
      end

      def call
        index = @ctx.progress.next!
        @ctx.listener.trial_started(@trial, index, @ctx.progress.total)
        log = File.join(@ctx.store.logs_dir, "#{self.class.slug(@trial.key)}.#{@ctx.engine.name}.log")
        started_at = Clock.wall_iso8601
        result = @ctx.engine.run(url: @url, concurrency: @trial.concurrency, duration: @config[:duration],
                                 threads: @config[:threads], timeout: @config[:timeout], log_path: log)
        record = TrialRecord.build(@trial, result, started_at: started_at, log: File.basename(log),
                                                   verification: @verification)
        @ctx.store.append_trial(record)
        @ctx.listener.trial_finished(record, index, @ctx.progress.total)
      end
    end
  end
end
