# frozen_string_literal: true

require "set"
require_relative "clock"
require_relative "error"
require_relative "workload/arena"
require_relative "workload/upstream_stub"
require_relative "workload/app"
require_relative "workload/probe_wrapper"
require_relative "plan/config"
require_relative "runner/session"
require_relative "runner/adaptive_rounds"
require_relative "runner/takes_choice"
require_relative "test_seam"
require_relative "tls"
require_relative "sampling/noise"

module Rackbench
  # Runs a plan: for each (repetition, setup) in the plan's schedule, one
  # Session boots the server and measures its trials; each trial is stored
  # the moment it ends. A setup that fails is recorded with its reason and the
  # run goes on. Trials already in the store (a resumed run) are skipped.
  # Reporting happens in listeners; the runner only measures and stores.
  class Runner
    def initialize(plan:, store:, engine:, listener:)
      @plan = plan
      @config = plan.config
      @store = store
      @engine = engine
      @listener = listener
      @stored = store.raw_trials.map { |t| t["key"] }.to_set
      @progress = Progress.new(@stored.size, plan.trials.size)
      @endpoint_failures = EndpointFailures.new # shared by the run's sessions
    end

    # Counts trials for progress lines ("[3/48]").
    Progress = Struct.new(:done, :total) do
      def next!
        self.done += 1
      end
    end

    # Yields the context a Session needs (upstream stub running meanwhile),
    # for searches that choose their own levels (rackbench capacity, tune),
    # after the same check for foreign load as a run's.
    def with_context
      Rackbench::Sampling::Noise.check_before_run(@listener, @engine)
      with_upstream { |env| yield context(env) }
    end

    def call
      Rackbench::Sampling::Noise.check_before_run(@listener, @engine)
      started = Clock.now
      with_upstream do |env|
        @plan.schedule.each { |rep, setup| run_session(rep, setup, env) }
        next unless @config[:decide]

        AdaptiveRounds.new(plan: @plan, store: @store, listener: @listener, started: started).call do |rep|
          @progress.total += @plan.round(rep).sum { |setup| @plan.trials_for(setup, rep).size }
          @plan.round(rep).each { |setup| run_session(rep, setup, env) }
        end
      end
      @listener.run_finished(@store)
    end

    private

    def run_session(rep, setup, env)
      choose_takes(rep)
      trials = @plan.trials_for(setup, rep).reject { |t| @stored.include?(t.key) }
      return if trials.empty?

      Session.new(setup: setup, repetition: rep, trials: trials, context: context(env)).call
      TestSeam.hold(:between_setups)
    end

    # --per-boot auto: once the pilot rounds are stored, the takes per boot
    # of every later round (TakesChoice), said once; the progress total
    # counts the later rounds' trials anew. A resumed run chooses again
    # from the same stored pilots, so it takes the same K.
    def choose_takes(rep)
      return unless @plan.auto_takes? && rep > Plan::PILOT_ROUNDS && @plan.chosen_takes.nil?

      choice = TakesChoice.call(@store, @config)
      before = @plan.trials.size
      @plan.choose_takes(choice.takes)
      @progress.total += @plan.trials.size - before
      @listener.note("--per-boot auto: #{choice.takes} take(s) per boot from round #{Plan::PILOT_ROUNDS + 1} on: " \
                     "#{choice.reason}")
    end

    def context(env)
      Session::Context.new(plan: @plan, config: @config, store: @store, engine: @engine, listener: @listener,
                           env: env, progress: @progress, app: app,
                           endpoint_failures: @endpoint_failures, tls: tls)
    end

    # --tls: the run's certificate, made once in its directory (Tls).
    def tls
      return nil unless @config[:tls] && !@plan.external?

      @tls ||= Tls.for_run(@store.path, bind: @config[:bind])
    end

    # The app under test; a user's app with the probe on (--probe, or
    # Config::PROBE_DEFAULT) behind the probe's wrapper, written once into
    # the run's logs directory. Never for --url: that server is not ours.
    def app
      @app ||= begin
        app = Workload::App.resolve(@config[:app])
        probe = @config[:probe].nil? ? Config::PROBE_DEFAULT : @config[:probe]
        probe && !app.arena? && !@plan.external? ? Workload::ProbeWrapper.write(app, @store.logs_dir) : app
      end
    end

    def with_upstream
      return yield({}) unless Workload::Arena.needs_upstream?(@plan.endpoints) && !@plan.external?

      stub = Workload::UpstreamStub.new(delay: @config[:upstream_delay], bytes: @config[:upstream_bytes],
                                        log_dir: @store.logs_dir).start
      yield({ "RACKBENCH_UPSTREAM_URL" => stub.url })
    ensure
      stub&.stop
    end
  end
end
