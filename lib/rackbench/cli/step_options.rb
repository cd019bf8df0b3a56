# frozen_string_literal: true

require "etc"
require "fileutils"
require_relative "../error"
require_relative "../units"
require_relative "../server"
require_relative "../plan/config"
require_relative "../store/target"
require_relative "options"

module Rackbench
  module CLI
    # What rackbench bisect and rackbench gate share: the options of the run
    # each step makes (one setup, one endpoint, one level), the argv that
    # run is given (CLI::BisectStep), and the directory the steps go into.
    module StepOptions
      RUN_FLAGS = { setup: "-s", concurrency: "-c", duration: "-d", warmup: "--warmup", max_rounds: "--max-rounds",
                    time_budget: "--time-budget", cpus: "--cpus", margin: "--margin" }.freeze
      # run's own options (CLI::Options), passed on to each step's run:
      # --setup-cmd CMD ("" for none), --fetch-gems.
      STEP_SETUP = %i[setup_cmd fetch_gems].freeze
      # --max-rounds 30: at 3% per-round noise a 10% step is decided in 100% of simulated 64-commit bisections
      # at 30 rounds a step, 15% at 12 (bench/bisect_sim.rb; docs/your-change.md); 30 rounds of 15 s fit 10m.
      DEFAULTS = { concurrency: "1", duration: "2", warmup: "1", max_rounds: "30", time_budget: "10m", margin: "5" }.freeze

      private

      def app_option(o, opts)
        o.on("--app PATH", "the app: a config.ru or a Rails root, in a git repository (required)") { |v| opts[:app] = v }
      end

      def run_options(o, opts)
        o.on("-s", "--setup LABEL", "the server setup every step runs (default: the first of run's default plan)") { |v| opts[:setup] = v }
        o.on("-c", "--concurrency N", "one level (default: #{DEFAULTS[:concurrency]})") { |v| opts[:concurrency] = v }
        o.on("-d", "--duration SECONDS", "measured load per trial (default: #{DEFAULTS[:duration]})") { |v| opts[:duration] = v }
        o.on("--warmup SECONDS", "unrecorded load on each boot before it is measured (default: #{DEFAULTS[:warmup]})") { |v| opts[:warmup] = v }
        o.on("--margin PERCENT", "slower by more than this is bad (default: #{DEFAULTS[:margin]})") { |v| opts[:margin] = v }
        o.on("--max-rounds N", "each step's rounds at most (default: #{DEFAULTS[:max_rounds]})") { |v| opts[:max_rounds] = v }
        o.on("--time-budget TIME", "each step adds no round after this long (default: #{DEFAULTS[:time_budget]})") { |v| opts[:time_budget] = v }
        o.on("--cpus server=LIST,client=LIST|auto", "pin the server and the load generator apart (auto advised)") { |v| opts[:cpus] = v }
        Options.define(o, opts, STEP_SETUP) # run's own declarations: each step's worktree set up as run sets it up
      end

      # One level, and the margin as a share (opts[:margin_share]).
      def check_run_options!(opts, command)
        raise UsageError, "#{command} takes one level: -c N (got #{opts[:concurrency]})" if opts[:concurrency].to_s.include?(",")

        opts[:margin_share] = Units.margin_percent(opts[:margin] || DEFAULTS[:margin])
      end

      # The run options every step passes on (the run checks each value
      # before anything boots, and a refusal there ends the command).
      def run_argv(opts)
        setup = opts[:setup] || Config.default_setups(Etc.nprocessors, installed: Server.keys).first or
          raise UsageError, "no server installed for a default setup: give -s SETUP (rackbench servers)"
        values = DEFAULTS.merge(opts.slice(*RUN_FLAGS.keys).compact).merge(setup: setup)
        margin = values[:margin].to_s.delete_suffix("%")
        ["--app", File.expand_path(opts[:app]), "-e", opts[:endpoint], "--decide", "--fail-if-slower", margin,
         *RUN_FLAGS.flat_map { |key, flag| values[key] ? [flag, values[key].to_s] : [] },
         *(opts[:setup_cmd] ? ["--setup-cmd=#{opts[:setup_cmd]}"] : []), *(opts[:fetch_gems] ? ["--fetch-gems"] : [])]
      end

      # A new directory (out, or rackbench-runs/PREFIX-<timestamp>) with its
      # steps/ folder; an existing one is refused with what to do instead.
      def make_directory(out, prefix, instead)
        dir = out ? Store::Target.expand(out) : File.join("rackbench-runs", "#{prefix}-#{Time.now.utc.strftime('%Y%m%d-%H%M%S')}")
        FileUtils.mkdir_p(File.dirname(dir))
        Dir.mkdir(dir)
        FileUtils.mkdir_p(File.join(dir, "steps"))
        File.expand_path(dir)
      rescue Errno::EEXIST
        raise UsageError, "#{dir} already exists: #{instead}"
      rescue SystemCallError => e
        raise UsageError, "cannot make the directory #{dir}: #{Error.reason(e)}"
      end
    end
  end
end
