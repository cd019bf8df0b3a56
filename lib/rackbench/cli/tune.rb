# frozen_string_literal: true

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

        @world = Config::Settle::World.new(@env) # the space's servers, settled in the build (Config::Settle::Space)
        config = Config.build(cli.except(*SEARCH).merge(endpoints: endpoints(cli), setups: [], warmup: 1, cooldown: 0,
                                                        space: space(cli)), world: @world)
        ServerCheck.stale!(Workload::App.resolve(config[:app]), env: @env)
        space = config[:space]
        slo = Stats::Slo.new(p99_ms: space.slo_p99, error_rate: space.max_errors / 100.0, health: cli.key?(:health_timeout))
        Load.require_default!

        execute(Plan.new(config), slo, space)
      end

      private

      # The search's options as the space's layer (Config::Space): --servers
      # only when named (not named: the default list's runnable servers, said).
      def space(cli)
        named = @argv.any? { |a| a == "--servers" || a.start_with?("--servers=") }
        { servers: named ? cli[:servers] : nil, memory_budget: cli[:memory_budget], slo_p99: cli[:slo_p99],
          max_errors: cli[:max_errors], time_budget: cli[:time_budget], max_workers: cli[:max_workers],
          ladders: Options::LADDERS.transform_values { |k| cli[k] }, predict: cli[:predict] != false }
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

      def execute(plan, slo, space)
        quiet = plan.config[:quiet]
        frame = Measuring.new(command: "tune", argv: @argv, err: @err, env: @env, quiet: quiet)
        frame.call(out: plan.config[:out], prefix: "tune-", meta: meta(plan, slo, space)) do |store, listener|
          @err.puts "rackbench tune: run directory #{store.path}" unless quiet
          @world.tell(listener)
          rec = search(plan, store, listener, slo, space, quiet ? nil : ->(line) { @err.puts line })
          Report::TuneText.new(store.path, io: @out).render
          @err.puts "Report: #{Report::Formats.save_page(store)}"
          raise Error, rec["reason"] unless rec["setup"]

          0
        end
      end

      def search(plan, store, listener, slo, space, say)
        deadline = Search::Tune::Deadline.new(space.time_budget)
        runner = Runner.new(plan: plan, store: store, engine: Load.default, listener: listener)
        runner.with_context do |ctx|
          lab = Search::Tune::Lab.new(context: ctx, endpoint: plan.endpoints.first, slo: slo, deadline: deadline)
          Search::Tune.new(lab: lab, journal: Store::TuneJournal.new(store), deadline: deadline, servers: space.servers,
                           budget_mb: space.memory_budget, slo: slo, endpoint: plan.endpoints.first, cores: space.cores,
                           max_workers: space.max_workers, ladders: space.ladders, say: say, predict: space.predict,
                           margin: plan.config[:margin], seed: plan.config[:seed]).call
        end
      end

      def meta(plan, slo, space)
        { "config" => Config.dump(plan.config), "slo" => slo.to_h,
          "plan" => plan.to_h.merge("setups" => [], "trials" => nil, "duration_s" => "1–3.75", "loop" => "closed and open"),
          "tune" => { "servers" => space.servers, "memory_budget_mb" => space.memory_budget,
                      "time_budget_s" => space.time_budget, "max_workers" => space.max_workers,
                      **Options::LADDERS.to_h { |server, k| [k.to_s, space.ladders[server]] }, "predict" => space.predict,
                      "endpoint" => plan.endpoints.first, "method" => Search::Tune::METHOD } }
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
