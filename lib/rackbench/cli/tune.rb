# frozen_string_literal: true

require "etc"
require_relative "command"
require_relative "load_options"
require_relative "../plan/config"
require_relative "../plan"
require_relative "../load"
require_relative "../runner"
require_relative "../environment"
require_relative "../plan/setup"
require_relative "../store/run_dir"
require_relative "../report/listener"
require_relative "../report/progress"
require_relative "../report/tune_text"
require_relative "../report/html"
require_relative "../search/slo"
require_relative "../search/tune"
require_relative "../search/tune/lab"
require_relative "../search/tune/journal"
require_relative "../process/registry"

module Rackbench
  module CLI
    # rackbench tune: the server x workers x threads setup that sustains the
    # most open-loop throughput on one endpoint within an SLO and a memory
    # budget, found by successive halving (Search::Tune), with its evidence
    # and a config file for it.
    #
    # One endpoint per tune: several --endpoint are refused (tune once per
    # endpoint, or load them together as one weighted --scenario).
    class Tune < Command
      DEFAULT_SERVERS = %w[puma unicorn].freeze
      ARENA_ENDPOINT = "/random" # the App Server Arena's mixed workload
      APP_ENDPOINT = "/"

      def call(argv)
        cli, opts = options(argv)
        return 0 unless cli
        raise UsageError, "unexpected argument #{argv.first.inspect}" unless argv.empty?
        raise UsageError, "give the memory the app may use with --memory-budget, e.g. --memory-budget 2GiB" unless opts[:budget_mb]
        # No default objective: what p99 is acceptable depends on the
        # workload (the arena's /random sleeps 1 s on a fifth of its requests).
        raise UsageError, "give the latency objective with --slo-p99, e.g. --slo-p99 300ms (or 3s for /random)" unless opts[:p99_ms]

        config = Config.build(cli.merge(endpoints: endpoints(cli), setups: [], warmup: 1, cooldown: 0))
        slo = Search::Slo.new(p99_ms: opts[:p99_ms], error_rate: opts[:errors] / 100.0, health: cli.key?(:health_timeout))
        raise Error, Load::Wrk::NOT_FOUND unless Load.engine("wrk").available?

        execute(Plan.new(config), slo, opts)
      end

      private

      def endpoints(cli)
        given = Array(cli[:endpoints])
        if given.size > 1
          raise UsageError, "tune searches one endpoint at a time (got #{given.join(', ')}): run rackbench tune once per " \
                            "endpoint, or load them together as one workload with --scenario \"#{given.map { |e| "#{e}:1" }.join(',')}\""
        end
        return given if given.any? || cli[:scenario]

        [cli[:app] ? APP_ENDPOINT : ARENA_ENDPOINT]
      end

      def execute(plan, slo, opts)
        command = ["rackbench", "tune", *@argv].join(" ")
        out = plan.config[:out]
        store = out ? Store::RunDir.create(out, command: command) : Store::RunDir.create_default("tune-", command: command)
        store.write_meta(meta(plan, slo, opts, store))
        listener = run_listener(store, quiet: plan.config[:quiet])
        say = plan.config[:quiet] ? nil : ->(line) { @err.puts line }
        @err.puts "rackbench tune: run directory #{store.path}" unless plan.config[:quiet]
        rec = search(plan, store, listener, slo, opts, say)
        Rackbench::Report::TuneText.new(store.path, io: @out).render
        @out.puts "report: #{Rackbench::Report::Html.write(store)}"
        raise Error, rec["reason"] unless rec["setup"]

        0
      rescue Interrupted => e
        e.run_dir ||= store&.path if store&.trials&.any?
        raise
      ensure
        ProcessControl::Registry.stop_all
        store&.unlock
      end

      def search(plan, store, listener, slo, opts, say)
        deadline = Search::Tune::Deadline.new(opts[:time_s])
        runner = Runner.new(plan: plan, store: store, engine: Load.engine("wrk"), listener: listener)
        runner.with_context do |ctx|
          lab = Search::Tune::Lab.new(context: ctx, endpoint: plan.endpoints.first, slo: slo, deadline: deadline)
          Search::Tune.new(lab: lab, journal: Search::Tune::Journal.new(store), deadline: deadline, servers: opts[:servers],
                           budget_mb: opts[:budget_mb], slo: slo, endpoint: plan.endpoints.first, cores: Etc.nprocessors,
                           max_workers: opts[:max_workers], puma_threads: opts[:puma_threads], say: say).call
        end
      end

      def meta(plan, slo, opts, store)
        Environment.collect(env: @env).merge(
          "command" => "tune", "run_dir" => File.expand_path(store.path), "started_at" => Clock.wall_iso8601,
          "argv" => ["rackbench", "tune", *@argv], "config" => Config.dump(plan.config), "slo" => slo.to_h,
          "plan" => plan.to_h.merge("setups" => [], "trials" => nil, "duration_s" => "1–3.75", "loop" => "closed and open"),
          "tune" => { "servers" => opts[:servers], "memory_budget_mb" => opts[:budget_mb], "time_budget_s" => opts[:time_s],
                      "max_workers" => opts[:max_workers], "puma_threads" => opts[:puma_threads],
                      "endpoint" => plan.endpoints.first, "method" => Search::Tune::METHOD }
        )
      end

      def options(argv)
        @argv = argv.dup
        cli = {}
        opts = { servers: DEFAULT_SERVERS, p99_ms: nil, errors: 0.1, time_s: 600.0, budget_mb: nil, max_workers: nil,
                 puma_threads: Search::Tune::Candidates::PUMA_THREADS }
        units = Search::Tune::Units
        parser = OptionParser.new do |o|
          o.banner = "Usage: rackbench tune --memory-budget SIZE [options]\n\n" \
                     "The server x workers x threads setup that sustains the most open-loop throughput on one endpoint\n" \
                     "within the SLO and the memory budget, on this machine: #{Search::Tune::METHOD}.\n" \
                     "Writes recommendation.json, tune.jsonl and the winner's config file into the run directory.\n\n"
          o.on("--memory-budget SIZE", "memory the app may use (PSS): #{units::MEMORY_FORMS}") { |v| opts[:budget_mb] = units.mebibytes(v) }
          o.on("--servers LIST", "servers to try (default puma,unicorn; also #{(Server.keys - DEFAULT_SERVERS).join(', ')})") { |v| opts[:servers] = servers(v) }
          o.on("--slo-p99 TIME", "p99 latency objective (required): 300ms, 0.5s or milliseconds") { |v| opts[:p99_ms] = units.millis(v) }
          o.on("--max-errors PERCENT", "error budget in % of responses (default 0.1)") { |v| opts[:errors] = Search::Slo.parse_error_percent(v) }
          o.on("--time-budget TIME", "stop searching after this long: 10m, 90s, 1h (default 10m)") { |v| opts[:time_s] = units.seconds(v, min: 10) }
          o.on("-e", "--endpoint PATH", "the endpoint to tune for (default #{ARENA_ENDPOINT} on the arena app, #{APP_ENDPOINT} with --app)") { |v| (cli[:endpoints] ||= []) << v }
          o.on("--scenario MIX", 'or a weighted mix of paths as one workload, e.g. "/:5,/posts:3"') { |v| cli[:scenario] = v }
          o.on("--app PATH", "your app's config.ru (or its directory) instead of the built-in arena app") { |v| cli[:app] = Workload::App.expand(v) }
          o.on("--max-workers N", "at most N workers (default: what fits the budget, at most 2 x cores)") { |v| opts[:max_workers] = Config.count(:max_workers, v, max: Setup::MAX_WORKERS) }
          o.on("--puma-threads LIST", "Puma thread counts to try (default #{Search::Tune::Candidates::PUMA_THREADS.join(',')})") { |v| opts[:puma_threads] = units.counts(v, flag: "--puma-threads", max: Setup::MAX_THREADS) }
          o.on("-o", "--out DIR", "run directory (default rackbench-runs/tune-<timestamp>)") { |v| cli[:out] = Store::Target.expand(v) }
          LoadOptions.define_process(o, cli)
          LoadOptions.define_verification(o, cli)
          o.on("--health-timeout SECONDS", "a health check slower than this fails the SLO (default: not judged)") { |v| cli[:health_timeout] = v }
          o.on("--upstream-delay SECONDS", "delay of the /network-io upstream stub (default 0.1)") { |v| cli[:upstream_delay] = v }
          o.on("-q", "--quiet", "no progress lines") { cli[:quiet] = true }
        end
        parse!(parser, argv) ? [cli, opts] : [nil, nil]
      end

      def servers(text)
        names = text.to_s.split(",").map { |s| s.strip.downcase }.reject(&:empty?).uniq
        raise UsageError, "--servers #{text.inspect}: name at least one server, e.g. --servers puma,unicorn" if names.empty?

        bad = names.find { |n| !Server::ADAPTERS.key?(n) }
        if bad
          raise UsageError, "--servers #{text.inspect}: unknown server #{bad.to_s.inspect}#{Suggest.did_you_mean(bad.to_s, Server.keys)}; " \
                            "accepted: #{Server.keys.join(', ')}, separated by commas"
        end
        names
      end

    end
  end
end
