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
require_relative "../plan/server_check"
require_relative "run_resume"
require_relative "run_meta"
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

        @world = Config::Settle::World.new(@env) # the refs' commits and the default plan's servers, settled in the build
        config = layered_config(cli, plan_path)
        ServerCheck.check!(config, env: @env)
        engine = checked_engine(config[:engine], config)
        check_servers!(config)
        execute(Plan.new(config), engine)
      end

      private

      def execute(plan, engine, store = nil)
        frame = Measuring.new(command: "run", argv: @argv_seen, err: @err, env: @env, quiet: plan.config[:quiet])
        frame.call(out: plan.config[:out], store: store, meta: store ? {} : RunMeta.for(plan, engine, suite: @suite, env: @env)) do |run_dir, listener|
          listener.run_started(run_dir.meta)
          @world&.tell(listener)
          Runner.new(plan: plan, store: run_dir, engine: engine, listener: listener).call
          frame.finish(listener, margin: plan.config[:margin]) # the end's calibration before the report
          RunReport.new(out: @out, err: @err, env: @env).call(run_dir, plan)
        end
      end

      # defaults < suite (--suite NAME [--quick]) < plan file < command line.
      def layered_config(cli, plan_path)
        @suite = cli.delete(:suite)
        quick = cli.delete(:quick)
        raise UsageError, "--quick picks a suite's quick variant: add --suite NAME (rackbench suites lists them)" if quick && !@suite

        suite = @suite && Suites.settings(@suite, cores: Etc.nprocessors, quick: quick)
        Config.build(Config.quick_layer(cli, plan_path: plan_path, suite: @suite), suite,
                     plan_path && plan_settings(plan_path), cli, world: @world)
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

      # --resume DIR: the plan comes from DIR's meta.json (RunResume); stored trials are skipped.
      def resume(cli, plan_path)
        config, store = RunResume.new(argv_seen: @argv_seen, err: @err).prepare(cli, plan_path)
        execute(Plan.new(config), checked_engine(config[:engine], config), store)
      end

      OPTIONS = Options.run_keys.freeze # every setting's flag (CLI::Options.run_keys)

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

      # The JRuby setups and the proxies in front (the servers and the app's bundle: ServerCheck.check!).
      def check_servers!(config)
        app = Workload::App.resolve(config[:app])
        JrubyCheck.check!(config[:setups], app, runtime: Runtime::Jruby.default(@env))
        missing = config[:setups].filter_map(&:front).uniq.map { |name| Server::Front.fetch(name) }.reject(&:available?)
        raise Error, missing.first::NOT_FOUND if missing.any?
      end

    end
  end
end
