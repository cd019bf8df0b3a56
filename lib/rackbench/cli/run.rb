# frozen_string_literal: true

require "etc"
require "shellwords"
require_relative "command"
require_relative "../version"
require_relative "../redact"
require_relative "../plan/config"
require_relative "../plan"
require_relative "../plan/file"
require_relative "../load"
require_relative "../runner"
require_relative "../workload/app"
require_relative "../workload/git_refs"
require_relative "../report/formats"
require_relative "../stats/looks"
require_relative "../server/front"
require_relative "../store/run_dir"
require_relative "../store/not_writable"
require_relative "../process_control/journal"
require_relative "servers"
require_relative "options"
require_relative "measuring"
require_relative "jruby_check"
require_relative "server_check"
require_relative "resume_trust"
require_relative "run_report"
require_relative "../load/remote/engine"

module Rackbench
  module CLI
    # rackbench run [PLAN.rb] [options]
    class RunCommand < Command
      # The quick plan as --help states it, from Config's defaults and each
      # server's default setup (Server::Base.default_label), so it cannot drift.
      def self.banner(cores = Etc.nprocessors)
        q = Config::QUICK
        d = Config::DEFAULTS
        "Usage: rackbench run [PLAN.rb] [options]\n\n" \
          "With no options, the quick plan on the built-in arena app, a race: each installed server of the\n" \
          "default plan in its default setup for this machine's #{cores} core#{'s' unless cores == 1} " \
          "(#{Config.default_setups(cores, installed: Server.keys).join(', ')}),\n" \
          "endpoints #{Config::QUICK_ENDPOINTS.join(', ')}, concurrency #{q[:concurrency].join(', ')},\n" \
          "#{format('%g', q[:duration])} s per trial after a #{format('%g', d[:warmup])} s warm-up per endpoint, " \
          "rounds (fresh boots) until each endpoint has a decided\n" \
          "winner or equivalence group (a setup decided slower leaves the race), at most #{q[:max_rounds]} rounds and " \
          "#{format("%g", q[:decide_time] / 60.0)} minutes.\n" \
          "-r N, -c, -d, --max-rounds or --time-budget change it; -s, -e or a plan file make your own plan.\n" \
          "#{opt_in_line}Options override the plan file.\n\n"
      end

      # The installed servers the quick plan leaves to be named (Itsi, Iodine,
      # Agoo: three more would take it past 3 minutes; docs/servers.md).
      def self.opt_in_line
        opt_in = Server::ADAPTERS.reject { |_, klass| klass.default_label(2) }.select { |_, klass| klass.new.available? }.keys
        return "" if opt_in.empty?

        "Opt-in: #{opt_in.join(', ')} (name them with -s, or --suite field-2026).\n"
      end

      def call(argv)
        @argv_seen = Redact.argv(argv)
        cli = options(argv) or return 0
        plan_path = argv.shift
        raise UsageError, "unexpected argument #{argv.first.inspect}; give at most one plan file" unless argv.empty?

        return resume(cli, plan_path) if cli[:resume]

        config = refs(layered_config(cli, plan_path))
        config, @left_out = ServerCheck.plan!(config, env: @env)
        engine = checked_engine(config[:engine], config)
        check_servers!(config)
        execute(Plan.new(config), engine)
      end

      private

      def execute(plan, engine, store = nil)
        frame = Measuring.new(command: "run", argv: @argv_seen, err: @err, env: @env, quiet: plan.config[:quiet])
        frame.call(out: plan.config[:out], store: store, meta: store ? {} : meta_for(plan, engine)) do |run_dir, listener|
          listener.run_started(run_dir.meta)
          listener.warning(@left_out) if @left_out
          @ref_notes&.each { |n| listener.note(n) }
          @ref_warnings&.each { |w| listener.warning(w) }
          Runner.new(plan: plan, store: run_dir, engine: engine, listener: listener).call
          frame.finish(listener, margin: plan.config[:margin]) # the end's calibration before the report
          RunReport.new(out: @out, err: @err, env: @env).call(run_dir, plan)
        end
      end

      # run --ref: each ref resolved to its commit before anything boots
      # (meta.json keeps the commits, so --resume checks out the same code).
      def refs(config)
        return config if config[:refs].empty?

        app = Workload::App.resolve(config[:app])
        refs = Workload::GitRefs.resolve(app.root, config[:refs], config_ru: app.config_ru)
        @ref_notes = Workload::GitRefs.notes(app.root, refs)
        @ref_warnings = Workload::GitRefs.warnings(app.root, refs)
        config.merge(refs: refs.map(&:to_h)).freeze
      end

      # defaults < suite (--suite NAME [--quick]) < plan file < command line.
      def layered_config(cli, plan_path)
        @suite = cli.delete(:suite)
        quick = cli.delete(:quick)
        raise UsageError, "--quick picks a suite's quick variant: add --suite NAME (rackbench suites lists them)" if quick && !@suite

        suite = @suite && Suites.settings(@suite, cores: Etc.nprocessors, quick: quick)
        Config.build(Config.quick_layer(cli, plan_path: plan_path, suite: @suite), suite,
                     plan_path && plan_settings(plan_path), cli)
      end

      # A plan file only sets settings: a process it started and left
      # running (fork { sleep 600 }, a daemon) is killed and refused, also
      # when the plan failed otherwise.
      def plan_settings(path)
        since = ProcessControl::Orphans.now
        begin
          settings = PlanFile.load(path)
        ensure
          left = ProcessControl::Orphans.stop(ProcessControl::Orphans.adopted(since: since), timeout: 0)
        end
        return settings if left.empty?

        raise UsageError, "plan file #{path} started #{left.size} process(es) still running once it was read " \
                          "(#{left.first(3).join('; ')}); rackbench stopped them: a plan file only sets settings " \
                          "(setup, endpoint, concurrency ...)"
      end

      # --resume DIR: the plan comes from DIR's meta.json; stored trials are skipped.
      def resume(cli, plan_path)
        extra = cli.keys - %i[resume quiet] - ResumeTrust::KEYS
        if plan_path || extra.any?
          raise UsageError, "--resume takes the plan from the run directory; drop #{plan_path || Config.flag(extra.first)}"
        end

        store = Store::RunDir.open(cli[:resume])
        resumable!(store)
        ResumeTrust.check!(store.path, store.meta.fetch("config"), cli)
        lock(store)
        stop_survivors(store)
        refuse_search_resume(store)
        config = Config.load(store.meta.fetch("config").merge("quiet" => cli[:quiet] || false))
        meta = store.meta
        (meta["resumed"] ||= []) << { "at" => Clock.wall_iso8601, "trials_stored" => store.trials.size }
        store.write_meta(meta)
        execute(Plan.new(config), checked_engine(config[:engine], config), store)
      end

      # The run's writer lock (Store::NotWritable: another user's run is one line).
      def lock(store)
        store.lock!(["rackbench", "run", *@argv_seen].join(" "))
      rescue *Store::NotWritable::ERRORS => e
        raise Store::NotWritable.error(store.path, e)
      end

      # A run that holds its plan and configuration, written by this
      # version: trials measured by two versions are never mixed in one run.
      def resumable!(store)
        meta = store.meta
        missing = %w[config plan].reject { |k| meta[k].is_a?(Hash) }
        unless missing.empty?
          raise Error, "#{store.path} was not written by rackbench run (meta.json has no #{missing.join(' and no ')}): " \
                       "it cannot be resumed"
        end
        return if meta["rackbench"] == VERSION

        made = meta["rackbench"] ? "rackbench #{meta['rackbench']}" : "an unknown rackbench version (meta.json names none)"
        raise Error, "#{store.path} was made by #{made}, not this rackbench #{VERSION}: resuming would mix trials of two " \
                     "versions in one run; run again with a new --out (rackbench report #{store.path} still reads it)"
      end

      # capacity and tune choose each level from the ones before, in one
      # process: there is no plan to continue. Say so, and what to run.
      def refuse_search_resume(store)
        command = store.meta["command"]
        return unless %w[capacity tune].include?(command)

        store.unlock
        # Its own --out left out of the command shown: run as shown, it makes a new directory (the one
        # named would refuse again, as it exists).
        again = store.meta["argv"] ? Shellwords.join(without_out(store.meta["argv"])) : "rackbench #{command} ..."
        raise UsageError, "#{store.path} holds a rackbench #{command} run, which cannot be resumed (each level depends " \
                          "on the ones before): run it again (#{again}) with a new --out; " \
                          "its stored trials stay readable with rackbench report #{store.path}"
      end

      def without_out(argv)
        argv.each_with_index.reject { |a, i| a.match?(/\A(-o|--out)(=|\z)/) || %w[-o --out].include?(argv[i - 1]) && i.positive? }
            .map(&:first)
      end

      # Processes a killed rackbench left running in this run (servers still
      # holding pid files and ports): stopped before anything boots.
      def stop_survivors(store)
        left = ProcessControl::Journal.survivors(store.path)
        return if left.empty?

        what = ProcessControl::Journal.describe(left)
        ProcessControl::Journal.stop(left)
        @err.puts "Stopped #{left.size} process(es) a killed rackbench left running in this run: #{what}"
      end

      OPTIONS = %i[suite quick setups refs fail_if_slower scenario endpoints concurrency rate connections expected_latency duration warmup
                   warmup_window warmup_tolerance warmup_max cooldown repeat per_boot seed margin decide max_rounds decide_time engine threads cpus aslr boot
                   timeout boot_timeout stop_timeout expect_status port app url pid out upstream_delay upstream_bytes health_path
                   health_timeout load_hosts ssh_key ssh_known_hosts bind tls verify probe resume quiet].freeze

      def options(argv)
        parse_declared(argv, self.class.banner, OPTIONS)
      end

      # With load hosts: every host probed (reachable, wrk, cores) before any
      # server boots; a non-loopback --bind is a warning naming the address.
      def checked_engine(name, config = {})
        warning = Load::Remote::Settings.bind_warning(config[:bind].to_s) if config[:bind]
        @err.puts "Warning: #{warning}" if warning
        if config[:load_hosts]&.any?
          ssh = Load::Remote::Ssh.new(key: config[:ssh_key], known_hosts: config[:ssh_known_hosts])
          return Load::Remote::Engine.connect(name, config[:load_hosts], ssh: ssh, threads: config[:threads])
        end

        engine = Load.engine(name)
        return engine if engine.available?

        raise Error, engine.class.const_defined?(:NOT_FOUND) ? engine.class::NOT_FOUND : "#{name} is not available here"
      end

      # The servers themselves and the app's bundle: ServerCheck.plan!.
      def check_servers!(config)
        app = Workload::App.resolve(config[:app])
        JrubyCheck.check!(config[:setups], app, runtime: Runtime::Jruby.default(@env))
        missing = config[:setups].filter_map(&:front).uniq.map { |name| Server::Front.fetch(name) }.reject(&:available?)
        raise Error, missing.first::NOT_FOUND if missing.any?
      end

      def meta_for(plan, engine)
        { "suite" => @suite, "plan" => plan.to_h, "config" => Config.dump(plan.config),
          "engine" => { "name" => engine.name, "version" => engine.version },
          "servers" => plan.setups.map(&:server).uniq.to_h { |k| [k, server_version(k, plan.config)] },
          "app" => Workload::App.resolve(plan.config[:app]).to_h,
          "server_configs" => server_configs(plan) }.merge(JrubyCheck.meta(plan.setups, runtime: Runtime::Jruby.default(@env)))
      end

      # Each setup's command line and generated config files as they will be
      # rendered for its first round's boot (logs/SLUG-r1; round N boots in
      # SLUG-rN), the port, chosen at boot, shown as PORT; setups.jsonl has
      # the exact ones of every boot.
      def server_configs(plan)
        return {} if plan.external?

        app = Workload::App.resolve(plan.config[:app])
        plan.setups.to_h do |setup|
          adapter = Server.adapter(setup.server, app: app, runtime: setup.runtime)
          dir = File.join("RUN_DIR", "logs", "#{Runner::Measurement.slug(setup.label)}-r1")
          [setup.label, { "argv" => adapter.argv(setup, app: app.config_ru, port: "PORT", dir: dir),
                          "files" => adapter.files(setup, port: "PORT", dir: dir), "env" => adapter.env(setup) }]
        end
      end

      def server_version(key, config)
        key == Plan::EXTERNAL_SERVER ? nil : Server.adapter(key, app: Workload::App.resolve(config[:app])).version
      end
    end
  end
end
