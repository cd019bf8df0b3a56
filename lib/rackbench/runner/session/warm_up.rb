# frozen_string_literal: true

require_relative "../../clock"
require_relative "phase"
require_relative "../../error"
require_relative "../../process_control/affinity"
require_relative "../steady_warmup"

module Rackbench
  class Runner
    class Session
      # The warm-up phase: the endpoint loaded before its first trial, at
      # the heaviest of the trials' levels (the most connections, the lowest
      # rate), for --warmup seconds, or with --warmup steady until the JIT
      # is steady (SteadyWarmup, each window stored in warmups.jsonl as it
      # ends). A warm-up that fails is warned of, and the trials measured anyway.
      class WarmUp < Phase
        # {endpoint => the warm-up's Load::Result}: its latency tells a trial
        # whether to count throughput in a window (Measurement#window?).
        def results
          @results ||= {}
        end

        # {endpoint => SteadyWarmup::Outcome#to_h}: stored with each trial.
        def summaries
          @summaries ||= {}
        end

        # Returns the engine's Result (nil without warm-up, or when it failed);
        # --warmup steady: the last window's (SteadyWarmup). served: what
        # serves the endpoint (Place#url_of).
        def call(endpoint, trials, served, engine:)
          steady = @config[:warmup] == "steady"
          return unless steady || @config[:warmup].positive?

          url = @place.url_of(endpoint, served)
          ProcessControl::Affinity.pin(engine, @config[:cpus])
          @ctx.listener.warming_up(@setup, url)
          common = { url: url, timeout: @config[:timeout], log_path: File.join(@ctx.store.logs_dir, "warmup.log") }
          common[:scenario] = @ctx.plan.scenario if @ctx.plan.scenario
          run = lambda do |seconds|
            if trials.first.rate
              engine.run(rate: trials.map(&:rate).min, connections: @config[:connections], duration: seconds, **common)
            else
              engine.run(concurrency: trials.map(&:concurrency).max, threads: @config[:threads], duration: seconds, **common)
            end
          end
          results[endpoint] = steady ? until_steady(endpoint, trials, run) : run.call(@config[:warmup])
        rescue Error => e
          @ctx.listener.warning("#{@setup.label}: warm-up of #{url} failed (#{e.message}); measuring anyway")
          nil
        end

        private

        # Each window is stored the moment it ends (warmups.jsonl).
        def until_steady(endpoint, trials, run)
          rule = SteadyWarmup.new(window: @config[:warmup_window], tolerance: @config[:warmup_tolerance],
                                  max: @config[:warmup_max], open_loop: !trials.first.rate.nil?, run: run)
          outcome = rule.call do |w|
            @ctx.store.append_warmup({ "setup" => @setup.label, "repetition" => @rep, "endpoint" => endpoint,
                                       "at" => Clock.wall_iso8601 }.merge(w))
          end
          summaries[endpoint] = outcome.to_h
          outcome.last
        end
      end
    end
  end
end
