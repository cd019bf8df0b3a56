# frozen_string_literal: true

require "set"
require_relative "clock"
require_relative "error"
require_relative "workload/arena"
require_relative "workload/upstream_stub"
require_relative "workload/app"
require_relative "workload/probe_wrapper"
require_relative "workload/git_refs"
require_relative "workload/bundle_check"
require_relative "workload/bundle_install"
require_relative "workload/profile_check"
require_relative "plan/config"
require_relative "runner/session"
require_relative "runner/adaptive_rounds"
require_relative "runner/takes_choice"
require_relative "runner/shared_round"
require_relative "runner/boot_fit"
require_relative "runner/app_setup"
require_relative "test_seam"
require_relative "tls"
require_relative "sampling/noise"
require_relative "plan"

module Rackbench
  # Runs a plan: for each round, in the round's order, one Session per setup
  # boots the server and measures its trials (--boot together, from round 2
  # when they fit: the round's sessions side by side, SharedRound); each
  # trial is stored the moment it ends. A setup that fails is recorded with its reason and the
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
      @slow_stops = SlowStops.new # so is this
    end

    # Counts trials for progress lines ("[3/48]"). A search that measures
    # more than it expected (a level measured again near the objective, a
    # longer probe) raises the total with it: never "[37/32]".
    Progress = Struct.new(:done, :total) do
      def next!
        self.done += 1
        self.total = done if done > total.to_i
        done
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
      with_refs do
        with_upstream do |env|
          (1..@config[:repeat]).each { |rep| run_round(rep, env) }
          next unless @config[:decide]

          AdaptiveRounds.new(plan: @plan, store: @store, listener: @listener, started: started).call do |rep, race|
            choose_takes(rep) # before counting the round's trials (--per-boot auto)
            @progress.total += @plan.round(rep).sum { |setup| round_trials(setup, rep, race).size }
            run_round(rep, env, race)
          end
        end
      end
      @listener.run_finished(@store)
    end

    private

    # The round's setups in its own order (Plan#round), each with the
    # trials not yet stored; in a race (Stats::Race), only the open cells'
    # contenders, so a setup out of every race is not booted.
    def run_round(rep, env, race = nil)
      choose_takes(rep)
      pending = @plan.round(rep).filter_map do |setup|
        trials = round_trials(setup, rep, race).reject { |t| @stored.include?(t.key) }
        [setup, trials] if trials.any?
      end
      return run_together(rep, pending, env) if together?(rep, pending)

      pending.each do |setup, trials|
        Session.new(setup: setup, repetition: rep, trials: trials, context: context(env, setup)).call
        TestSeam.hold(:between_setups)
      end
    end

    def round_trials(setup, rep, race)
      trials = @plan.trials_for(setup, rep)
      return trials unless race

      trials.select { |t| race.contender?(t.endpoint, t.concurrency || t.rate, setup.label) }
    end

    def run_together(rep, pending, env)
      labels = pending.map { |setup, _| setup.label }
      sessions = pending.map do |setup, trials|
        Session.new(setup: setup, repetition: rep, trials: trials, context: context(env, setup), neighbours: labels - [setup.label])
      end
      SharedRound.new(sessions, order: pending.flat_map { |setup, _| @plan.trials_for(setup, rep) }).call
      TestSeam.hold(:between_setups)
    end

    # --boot together: from round 2 on (round 1 measures each setup's
    # footprint alone), when the round's setups fit in memory (BootFit);
    # each round's choice is said.
    def together?(rep, pending)
      return false unless @config[:boot] == "together" && pending.size >= 2 && rep > 1

      fit = BootFit.call(@store.raw_trials, pending.map { |setup, _| setup.label })
      @listener.note("--boot together: round #{rep}: #{fit.together ? 'booted side by side' : 'booted apart'} (#{fit.reason})")
      fit.together
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

    # setup: with run --ref, the setup whose commit of the app it boots.
    def context(env, setup = nil)
      Session::Context.new(plan: @plan, config: @config, store: @store, engine: @engine, listener: @listener,
                           env: env, progress: @progress, app: app_for(setup),
                           endpoint_failures: @endpoint_failures, tls: tls, slow_stops: @slow_stops)
    end

    def app_for(setup)
      ref = setup&.ref
      ref ? @ref_apps.fetch(ref["sha"]) : app
    end

    # run --ref: each commit checked out into the run directory for the
    # run's length (Workload::GitRefs), its app (behind the probe's wrapper
    # when the probe is on), its bundle and its setup (AppSetup) before any
    # boot. Without refs, --setup-cmd runs once for the app itself.
    def with_refs
      refs = Array(@config[:refs]).map { |r| Workload::GitRefs::Ref.new(name: r["name"], sha: r["sha"]) }
      if refs.empty?
        setup.call(Workload::App.resolve(@config[:app]), @store.logs_dir) unless @plan.external?
        return yield
      end

      base = Workload::App.resolve(@config[:app])
      Workload::GitRefs.with_worktrees(base.root, refs, @store.path, warn: @listener.method(:warning)) do |trees|
        @ref_apps = refs.uniq(&:sha).to_h { |r| [r.sha, ref_app(base, trees.fetch(r.sha), r)] }
        yield
      end
    end

    def ref_app(base, root, ref)
      app = Workload::App.new(config_ru: File.join(root, base.config_ru.delete_prefix("#{base.root}/")),
                              checkout: Workload::App::Checkout.new(short: ref.short, root: base.root))
      who = "--ref #{ref.name} (#{ref.short})"
      # Gems its lock names that are not installed: from this machine's gems first (Workload::BundleInstall).
      bundle = Workload::BundleInstall.local(app, fetch: @config[:fetch_gems])
      raise UsageError, "#{who}: #{bundle.problem}" if bundle.problem

      installed(ref, who, bundle) if bundle.installed
      setup.call(app, File.join(@store.logs_dir, "refs", ref.dir_name), who: who, ref: ref)

      problem = @config[:profile] && Workload::ProfileCheck.problem(app)
      raise UsageError, "--ref #{ref.name} (#{ref.short}): #{problem}" if problem

      @config[:probe] ? Workload::ProbeWrapper.write(app, File.join(@store.logs_dir, "refs", ref.dir_name)) : app
    end

    # Said in a note, and kept in meta.json's "bundle_installs" (a --quiet
    # run, a bisection's step: the user's BUNDLE_PATH changed, maybe from the
    # network, and the run directory says so).
    def installed(ref, who, bundle)
      meta = @store.meta
      (meta["bundle_installs"] ||= []) << { "ref" => ref.label, "sha" => ref.sha, "source" => bundle.source,
                                            "command" => bundle.command, "seconds" => bundle.seconds.round(1) }
      @store.write_meta(meta)
      @listener.note("#{who}: the gems its Gemfile.lock names were installed from #{bundle.source} " \
                     "(#{bundle.command}, #{bundle.seconds.round} s)")
    end

    def setup = (@setup ||= AppSetup.new(config: @config, store: @store, listener: @listener))

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
        @config[:probe] && !app.arena? && !@plan.external? ? Workload::ProbeWrapper.write(app, @store.logs_dir) : app
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
