# frozen_string_literal: true

require_relative "../error"
require_relative "../workload/arena"
require_relative "measurement"
require_relative "pool_check"
require_relative "session/context"
require_relative "session/place"
require_relative "session/boot"
require_relative "session/front_boot"
require_relative "session/verification"
require_relative "session/warm_up"
require_relative "session/settle"
require_relative "session/liveness"
require_relative "session/left_out"
require_relative "session/leftovers"
require_relative "slow_stops"

module Rackbench
  class Runner
    # One setup in one repetition: boot -> ready -> verify -> warm up ->
    # measure each endpoint x level (cool-down after CPU-heavy levels) ->
    # stop. Any SetupFailed is recorded in setups.jsonl with its reason and
    # log tail; the server is always stopped.
    #
    # The session runs the phases in that order, each an object of its own
    # (session/): Boot, FrontBoot (the proxy in front), Verification, WarmUp,
    # Settle, and PoolCheck after the first warm-up; Place says where the
    # server answers, LeftOut records what is not measured, Liveness and
    # Leftovers what the server's processes did.
    class Session
      # neighbours: the labels of the setups booted beside this one for the
      # round (--boot together: SharedRound), stored on its setups.jsonl line.
      def initialize(setup:, repetition:, trials:, context:, neighbours: [])
        @setup = setup
        @rep = repetition
        @trials = trials
        @ctx = context
        @config = context.config
        @neighbours = neighbours
        @place = Place.new(context, setup, repetition)
        @left_out = LeftOut.new(context, setup, repetition, trials)
        @warm_up = WarmUp.new(context, setup, repetition, @place)
        @prepared = []
      end

      attr_reader :setup, :trials

      # Runs the session's planned trials.
      def call
        with_server do
          @trials.group_by(&:endpoint).each { |endpoint, trials| run_cell(endpoint, trials) unless dropped?(endpoint) }
        end
      end

      # Measures trials (of one endpoint) on the running server, each
      # followed by the cool-down; the first time an endpoint comes, it is
      # warmed up first (at the heaviest of the session's levels for it).
      def run_cell(endpoint, trials)
        prepare(endpoint) unless @prepared.include?(endpoint)
        trials.each do |trial|
          measure(trial)
          cool_down(endpoint)
        end
      end

      # An endpoint verification or an earlier setup left out of this session.
      def dropped?(endpoint)
        @left_out.include?(endpoint)
      end

      # The server failed while other sessions of the round go on
      # (SharedRound): its failure is recorded, its remaining trials counted
      # as done. The server is stopped when its #with_server block ends.
      def fail!(error)
        @left_out.setup_failed(error)
      end

      # Boots (unless --url), verifies the endpoints, yields self so a caller
      # (the capacity search) can #measure levels it chooses, then stops.
      # Returns the block's value, or nil when the setup failed or none of
      # its endpoints is left to measure. An endpoint that fails
      # verification is left out (the others are measured), and so is one
      # another setup found the app answers wrongly (EndpointFailures).
      def with_server(endpoints = @trials.map(&:endpoint).uniq)
        endpoints = @left_out.skip_known(endpoints)
        return nil if endpoints.empty? && @left_out.any?

        @ctx.listener.setup_started(@setup, @rep)
        boot unless @ctx.plan.external?
        FrontBoot.new(@ctx, @setup, @rep, @place).call(@instance) { |front| @front = front } if @setup.front
        @checks = verify(endpoints)
        yield self
      rescue SetupFailed => e
        @left_out.setup_failed(e)
        nil
      ensure
        Thread.handle_interrupt(Interrupted => :never) do # both are stopped, even on a signal meanwhile
          @front&.stop
          @instance&.stop
        end
        warn_leftovers
      end

      # Warns of what outlived the server's stop (Leftovers), and of a
      # server KILLed at its stop timeout (SlowStops: once per setup).
      def warn_leftovers
        Leftovers.warnings(@setup, @instance).each { |text| @ctx.listener.warning(text) }
        (@ctx.slow_stops ||= SlowStops.new).warning_once(@setup, @instance)&.then { |text| @ctx.listener.warning(text) }
      end

      # One trial on the running server: stored, reported, returned. A search
      # may pass its own context (another engine or settings for this level).
      def measure(trial, context: @ctx)
        alive!
        record = Measurement.new(trial: trial, url: @place.url_of(trial.endpoint, served), verification: @checks[trial.endpoint],
                                 instance: @instance, front: @front, context: context, runtime: @runtime_check,
                                 warmup: @warm_up.results[trial.endpoint],
                                 warmup_summary: @warm_up.summaries[trial.endpoint]).call
        alive!
        settle
        record
      end

      # Waits for the server to finish the requests queued when a trial's
      # load stopped (Settle); warns when it is still busy.
      def settle
        return unless @instance

        settled = Settle.new(host: @place.bind, port: served.port, path: @place.ready_path, tls: @ctx.tls,
                             within: @config[:timeout] + @config[:duration]).call
        return if settled

        @ctx.listener.warning("#{@setup.label}: still busy with queued requests after the trial; " \
                              "the next trial may wait behind them (raise --timeout)")
      end

      # Returns the engine's Result (nil without warm-up, or when it failed);
      # --warmup steady: the last window's (WarmUp).
      def warm_up(endpoint, trials, engine: @ctx.engine)
        @warm_up.call(endpoint, trials, served, engine: engine)
      end

      # {endpoint => SteadyWarmup::Outcome#to_h}: stored with each trial.
      def warmup_summaries
        @warm_up.summaries
      end

      private

      def boot
        phase = Boot.new(@ctx, @setup, @rep, @place, neighbours: @neighbours)
        phase.call { |instance| @instance = instance } # stopped in #with_server's ensure, even when its start fails
        @runtime_check = phase.runtime_check
      end

      # {endpoint => Verify::Outcome} of the endpoints that answer right; one
      # that does not is dropped from this session.
      def verify(endpoints)
        outcome = Verification.new(@ctx, @setup, @place, instance: @instance, front: @front, failures: @left_out.failures)
                              .call(endpoints)
        outcome.failed.each { |endpoint, e| @left_out.drop(endpoint, "failed", e.message) }
        outcome.checks
      end

      def prepare(endpoint)
        @prepared << endpoint
        warm_up(endpoint, @trials.select { |t| t.endpoint == endpoint })
        settle
        check_pool
      end

      def cool_down(endpoint)
        heavy = !@ctx.app.arena? || Workload::Arena.cpu_heavy?(endpoint)
        sleep @config[:cooldown] if heavy && @config[:cooldown].positive?
      end

      def alive!
        Liveness.check!(@setup, @instance, @front)
      end

      # Once per session, after the first warm-up (PoolCheck).
      def check_pool
        return if @pool_checked || @instance.nil?

        @pool_checked = true
        PoolCheck.after_warm_up(@setup, @place.server_dir)&.then { |w| @ctx.listener.warning(w) }
      end

      # What serves the endpoints: the proxy in front, else the server (nil: --url).
      def served
        @front || @instance
      end
    end
  end
end
