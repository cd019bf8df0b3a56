# frozen_string_literal: true

require_relative "command"
require_relative "options"
require_relative "measuring"
require_relative "../plan/server_check"
require_relative "../plan/config"
require_relative "../plan"
require_relative "../runner"
require_relative "../report/capacity_text"
require_relative "../report/formats"
require_relative "../search/capacity"
require_relative "../stats/slo"

module Rackbench
  module CLI
    # rackbench capacity: for each setup and endpoint, the highest load it
    # sustains within an SLO, closed loop (concurrency) and open loop (rate).
    class CapacityCommand < Command
      # Capacity chooses its own levels (concurrency and rate), engines (wrk,
      # wrk-open) and connections' latency: --concurrency, --rate, --engine,
      # --repeat and --expected-latency are not offered; nor --url (it boots
      # the setups it searches).
      OPTIONS = %i[slo_p99 max_errors sustain loop max_levels setups scenario endpoints connections duration warmup
                   warmup_window warmup_tolerance warmup_max cooldown threads cpus timeout boot_timeout stop_timeout
                   expect_status port app probe out upstream_delay upstream_bytes health_path health_timeout quiet].freeze
      SEARCH = %i[slo_p99 max_errors sustain loop max_levels].freeze

      def call(argv)
        @argv = argv.dup
        cli = options(argv) or return 0
        raise UsageError, "unexpected argument #{argv.first.inspect}" unless argv.empty?

        search = cli.slice(*SEARCH)
        @world = Config::Settle::World.new(@env) # the default plan's servers, settled in the build
        config = Config.build(cli.except(*SEARCH), world: @world)
        raise UsageError, "give the endpoint to search with --endpoint, e.g. --endpoint /pause/0.05" if config[:endpoints].empty?

        ServerCheck.check!(config, env: @env)
        engine!
        slo = Stats::Slo.new(p99_ms: search[:slo_p99], error_rate: search[:max_errors] / 100.0,
                              health: cli.key?(:health_timeout))
        execute(Plan.new(config), slo, search)
      end

      private

      # wrk drives both loops of the search: without it, refused before a
      # run directory is made or a server boots.
      def engine!
        Load.require_default!
      end

      def execute(plan, slo, search)
        frame = Measuring.new(command: "capacity", argv: @argv, err: @err, env: @env, quiet: plan.config[:quiet])
        meta = { "plan" => plan.to_h, "config" => Config.dump(plan.config), "slo" => slo.to_h,
                 "search" => { "p99_ms" => search[:slo_p99], "errors" => search[:max_errors], "sustain" => search[:sustain],
                               "loops" => search[:loop], "max_levels" => search[:max_levels] } }
        frame.call(out: plan.config[:out], prefix: "capacity-", meta: meta) do |store, listener|
          @err.puts "rackbench capacity: SLO #{slo.describe}; run directory #{store.path}"
          @world.tell(listener)
          knees = search_all(plan, store, listener, slo, search)
          Report::CapacityText.new(store.capacity, io: @out, trials: store.trials).render
          @err.puts "Report: #{Report::Formats.save_page(store)}"
          knees.compact.size == knees.size ? 0 : 1
        end
      end

      def search_all(plan, store, listener, slo, search)
        runner = Runner.new(plan: plan, store: store, engine: Load.default, listener: listener)
        runner.with_context do |ctx|
          ctx.progress.total = plan.setups.size * plan.endpoints.size * search[:max_levels] * search[:loop].size
          capacity = Search::Capacity.new(context: ctx, slo: slo, max_steps: search[:max_levels],
                                          sustain: search[:sustain], loops: search[:loop])
          plan.setups.product(plan.endpoints).map { |setup, endpoint| capacity.call(setup, endpoint) }
        end
      end

      BANNER = "Usage: rackbench capacity --setup LABEL --endpoint PATH [options]\n\n" \
               "For each setup and endpoint: the highest concurrency (closed loop) and the highest rate\n" \
               "(open loop, latency from the planned send) that meet the SLO. Doubling, then bisection.\n\n"

      def options(argv)
        parse_declared(argv, BANNER, OPTIONS, defaults: { slo_p99: "500ms", warmup: "1", cooldown: "0" },
                                              required: %i[endpoints],
                                              rules: { out: "rackbench-runs/capacity-<timestamp>",
                                                       connections: "enough for twice the closed-loop median latency at the rate" })
      end
    end
  end
end
