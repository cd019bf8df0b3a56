# frozen_string_literal: true

require "etc"
require_relative "command"
require_relative "options"
require_relative "measuring"
require_relative "../plan/server_check"
require_relative "../plan/config"
require_relative "../plan"
require_relative "../load"
require_relative "../runner"
require_relative "../report/tune_text"
require_relative "../report/formats"
require_relative "../stats/slo"
require_relative "../search/tune"
require_relative "../search/tune/lab"
require_relative "../store/tune_journal"
require_relative "../server"

module Rackbench
  module CLI
    # rackbench tune: the server x workers x threads setup that sustains the
    # most open-loop throughput on one endpoint within an SLO and a memory
    # budget, found by successive halving (Search::Tune), with its evidence
    # and a config file for it. The finalists are decided in paired rounds
    # (--margin: the equivalence margin; --seed: the rounds' orders).
    #
    # One endpoint per tune: several --endpoint are refused (tune once per
    # endpoint, or load them together as one weighted --scenario).
    class TuneCommand < Command
      ARENA_ENDPOINT = "/random" # the App Server Arena's mixed workload
      APP_ENDPOINT = "/"
      # The search's own options (a server's thread ladder among them), then the plan's;
      # the help lists the workload's (endpoints ... probe) after the first five.
      SEARCH = (%i[memory_budget servers slo_p99 max_errors time_budget max_workers] + Options::LADDERS.values + %i[predict]).freeze
      OPTIONS = (SEARCH.first(5) + %i[endpoints scenario app probe] + SEARCH.drop(5) +
                 %i[margin seed out threads cpus timeout boot_timeout stop_timeout expect_status health_timeout upstream_delay quiet]).freeze

      def call(argv)
        cli = options(argv) or return 0
        raise UsageError, "unexpected argument #{argv.first.inspect}" unless argv.empty?
        raise UsageError, "give the memory the app may use with --memory-budget, e.g. --memory-budget 2GiB" unless cli[:memory_budget]
        # No default objective: what p99 is acceptable depends on the
        # workload (the arena's /random sleeps 1 s on a fifth of its requests).
        raise UsageError, "give the latency objective with --slo-p99, e.g. --slo-p99 300ms (or 3s for /random)" unless cli[:slo_p99]

        opts = cli.slice(*SEARCH)
        config = Config.build(cli.except(*SEARCH).merge(endpoints: endpoints(cli), setups: [], warmup: 1, cooldown: 0))
        opts[:servers] = checked_servers(opts[:servers], config)
        slo = Stats::Slo.new(p99_ms: opts[:slo_p99], error_rate: opts[:max_errors] / 100.0, health: cli.key?(:health_timeout))
        Load.require_default!

        execute(Plan.new(config), slo, opts)
      end

      private

      # --servers as given: each must run with the app (exit 2 naming all
      # that cannot); the default list: those that cannot are left out,
      # with a warning saying so. Then the app's bundle (ServerCheck).
      def checked_servers(servers, config)
        app = Workload::App.resolve(config[:app])
        if @argv.any? { |a| a == "--servers" || a.start_with?("--servers=") }
          ServerCheck.requested!(servers, app)
        else
          servers, @left_out = ServerCheck.defaults(servers, app)
        end
        ServerCheck.stale!(app, env: @env)
        servers
      end

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
        quiet = plan.config[:quiet]
        frame = Measuring.new(command: "tune", argv: @argv, err: @err, env: @env, quiet: quiet)
        frame.call(out: plan.config[:out], prefix: "tune-", meta: meta(plan, slo, opts)) do |store, listener|
          @err.puts "rackbench tune: run directory #{store.path}" unless quiet
          listener.warning(@left_out) if @left_out
          rec = search(plan, store, listener, slo, opts, quiet ? nil : ->(line) { @err.puts line })
          Report::TuneText.new(store.path, io: @out).render
          @err.puts "Report: #{Report::Formats.save_page(store)}"
          raise Error, rec["reason"] unless rec["setup"]

          0
        end
      end

      def search(plan, store, listener, slo, opts, say)
        deadline = Search::Tune::Deadline.new(opts[:time_budget])
        runner = Runner.new(plan: plan, store: store, engine: Load.default, listener: listener)
        runner.with_context do |ctx|
          lab = Search::Tune::Lab.new(context: ctx, endpoint: plan.endpoints.first, slo: slo, deadline: deadline)
          Search::Tune.new(lab: lab, journal: Store::TuneJournal.new(store), deadline: deadline, servers: opts[:servers],
                           budget_mb: opts[:memory_budget], slo: slo, endpoint: plan.endpoints.first, cores: Etc.nprocessors,
                           max_workers: opts[:max_workers], ladders: Options::LADDERS.transform_values { |k| opts[k] }, say: say,
                           predict: opts[:predict] != false,
                           margin: plan.config[:margin], seed: plan.config[:seed]).call
        end
      end

      def meta(plan, slo, opts)
        { "config" => Config.dump(plan.config), "slo" => slo.to_h,
          "plan" => plan.to_h.merge("setups" => [], "trials" => nil, "duration_s" => "1–3.75", "loop" => "closed and open"),
          "tune" => { "servers" => opts[:servers], "memory_budget_mb" => opts[:memory_budget],
                      "time_budget_s" => opts[:time_budget], "max_workers" => opts[:max_workers],
                      **Options::LADDERS.values.to_h { |k| [k.to_s, opts[k]] }, "predict" => opts[:predict] != false, "endpoint" => plan.endpoints.first,
                      "method" => Search::Tune::METHOD } }
      end

      def options(argv)
        @argv = argv.dup
        banner = "Usage: rackbench tune --memory-budget SIZE [options]\n\n" \
                 "The server x workers x threads setup that sustains the most open-loop throughput on one endpoint\n" \
                 "within the SLO and the memory budget, on this machine: #{Search::Tune::METHOD}.\n" \
                 "Writes recommendation.json, tune.jsonl and the winner's config file into the run directory.\n\n"
        parse_declared(argv, banner, OPTIONS, required: %i[memory_budget slo_p99],
                                              rules: { endpoints: "#{ARENA_ENDPOINT} on the arena app, #{APP_ENDPOINT} with --app",
                                                       out: "rackbench-runs/tune-<timestamp>", health_timeout: "not judged" })
      end
    end
  end
end
