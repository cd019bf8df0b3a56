# frozen_string_literal: true

require_relative "command"
require_relative "load_options"
require_relative "../plan/config"
require_relative "../plan"
require_relative "../runner"
require_relative "../environment"
require_relative "../store/run_dir"
require_relative "../report/listener"
require_relative "../report/progress"
require_relative "../report/capacity_text"
require_relative "../report/html"
require_relative "../search/capacity"
require_relative "../process/registry"

module Rackbench
  module CLI
    # rackbench capacity: for each setup and endpoint, the highest load it
    # sustains within an SLO, closed loop (concurrency) and open loop (rate).
    class Capacity < Command
      def call(argv)
        @argv = argv.dup
        cli, search = options(argv)
        return 0 unless cli
        raise UsageError, "unexpected argument #{argv.first.inspect}" unless argv.empty?

        config = Config.build(cli.merge(warmup: cli[:warmup] || 1, cooldown: cli[:cooldown] || 0))
        raise UsageError, "give the endpoint to search with --endpoint, e.g. --endpoint /pause/0.05" if config[:endpoints].empty?

        config = Config.build(config.merge(setups: Config.default_setups)) if config[:setups].empty?
        slo = Search::Slo.new(p99_ms: search[:p99_ms], error_rate: search[:errors] / 100.0,
                              health: cli.key?(:health_timeout))
        execute(Plan.new(config), slo, search)
      end

      private

      def execute(plan, slo, search)
        command = ["rackbench", "capacity", *@argv].join(" ")
        out = plan.config[:out]
        store = out ? Store::RunDir.create(out, command: command) : Store::RunDir.create_default("capacity-", command: command)
        store.write_meta(Environment.collect(env: @env).merge(
                           "command" => "capacity", "argv" => ["rackbench", "capacity", *@argv],
                           "run_dir" => File.expand_path(store.path),
                           "started_at" => Clock.wall_iso8601, "plan" => plan.to_h, "config" => Config.dump(plan.config),
                           "slo" => slo.to_h, "search" => search.transform_keys(&:to_s)
                         ))
        listener = run_listener(store, quiet: plan.config[:quiet])
        @err.puts "rackbench capacity: SLO #{slo.describe}; run directory #{store.path}"
        knees = search_all(plan, store, listener, slo, search)
        Rackbench::Report::CapacityText.new(store.capacity, io: @out).render
        @err.puts "Report: #{Rackbench::Report::Html.write(store)}"
        knees.compact.size == knees.size ? 0 : 1
      rescue Error, Interrupted => e
        e.run_dir ||= store&.path if store&.trials&.any?
        raise
      ensure
        ProcessControl::Registry.stop_all
        store&.unlock
      end

      def search_all(plan, store, listener, slo, search)
        runner = Runner.new(plan: plan, store: store, engine: Load.engine("wrk"), listener: listener)
        runner.with_context do |ctx|
          ctx.progress.total = plan.setups.size * plan.endpoints.size * search[:max_levels] * search[:loops].size
          capacity = Search::Capacity.new(context: ctx, slo: slo, max_steps: search[:max_levels],
                                          sustain: search[:sustain], loops: search[:loops])
          plan.setups.product(plan.endpoints).map { |setup, endpoint| capacity.call(setup, endpoint) }
        end
      end

      def options(argv)
        cli = {}
        search = { p99_ms: 500.0, errors: 0.1, sustain: nil, loops: %w[closed open], max_levels: 10 }
        parser = OptionParser.new do |o|
          o.banner = "Usage: rackbench capacity --setup LABEL --endpoint PATH [options]\n\n" \
                     "For each setup and endpoint: the highest concurrency (closed loop) and the highest rate\n" \
                     "(open loop, latency from the planned send) that meet the SLO. Doubling, then bisection.\n\n"
          o.on("--slo-p99 TIME", "p99 latency objective: 500ms, 0.5s or milliseconds (default 500ms)") { |v| search[:p99_ms] = Search::Slo.parse_p99(v) }
          o.on("--max-errors PERCENT", "error budget in % of responses (default 0.1)") { |v| search[:errors] = Search::Slo.parse_error_percent(v) }
          o.on("--sustain SECONDS", "re-run the open-loop knee this long to confirm it holds (e.g. 60)") { |v| search[:sustain] = Config.number(:sustain, v, min: 1) }
          o.on("--loop KIND", %w[both open closed], "closed, open or both (default both)") { |v| search[:loops] = v == "both" ? %w[closed open] : [v] }
          o.on("--max-levels N", "measured levels per search at most (default 10)") { |v| search[:max_levels] = Config.count(:max_levels, v, max: 50) }
          LoadOptions.define(o, cli)
          o.on("-q", "--quiet", "no progress lines") { cli[:quiet] = true }
        end
        parse!(parser, argv) ? [cli, search] : [nil, nil]
      end
    end
  end
end
