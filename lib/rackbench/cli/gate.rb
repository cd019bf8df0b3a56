# frozen_string_literal: true

require "optparse"
require_relative "command"
require_relative "../workload/app"
require_relative "../search/bisect/path"
require_relative "bisect_step"
require_relative "step_options"

module Rackbench
  module CLI
    # rackbench gate --app . --base GOOD -e ENDPOINT: one step of a
    # bisection as a predicate for `git bisect run`: the commit the app's
    # repository has checked out (HEAD) decided against GOOD by a run
    # --decide (CLI::BisectStep), exit 0 good, 1 bad (slower than GOOD by
    # more than the margin), 125 undecided or not measurable (git bisect
    # skips it). Every failure and bad input exits 255, so that git bisect
    # run stops instead of calling the commit bad (it reads 1-127 but 125 as
    # bad). Each call spends rate/K, K from --steps (STEPS unless given: the
    # plain 5%; give ceil(log2 N) + 1 to hold 5% over a bisection of N commits).
    class GateCommand < Command
      include StepOptions

      BANNER = "Usage: rackbench gate --app PATH --base GOOD -e ENDPOINT [-s SETUP] [--margin P] [options]\n\n" \
               "Decides the commit checked out at PATH (HEAD) against GOOD, for git bisect run:\n" \
               "  git bisect start BAD GOOD && git bisect run rackbench gate --app . --base GOOD -e /posts --steps 7\n" \
               "Exit: 0 good (not slower than GOOD by more than P), 1 bad (slower by more), 125 undecided or the app\n" \
               "does not boot there (git bisect skips it), 255 bad input or a failure (git bisect run stops).\n\n"
      EXIT = { good: 0, bad: 1, undecided: 125, skipped: 125 }.freeze
      FAILED = 255
      STEPS = 1

      def call(argv)
        opts = options(argv) or return 0
        raise UsageError, "unexpected argument #{argv.first.inspect} (rackbench gate --help)" unless argv.empty?

        gate(opts)
      rescue Interrupted
        raise
      rescue Error => e
        @err.puts "Error: #{e.message} (exit #{FAILED}: git bisect run stops)"
        FAILED
      end

      private

      def options(argv)
        opts = {}
        parser = OptionParser.new do |o|
          o.banner = BANNER
          app_option(o, opts)
          o.on("--base REF", "the good commit HEAD is decided against (required)") { |v| opts[:base] = v }
          o.on("-e", "--endpoint PATH", "the endpoint (one, required)") { |v| opts[:endpoint] = v }
          run_options(o, opts)
          o.on("--steps K", Integer, "the calls that share the 5% rate (default: #{STEPS})") { |v| opts[:steps] = v }
          o.on("-o", "--out DIR", "the run's directory (default: rackbench-runs/gate-<timestamp>)") { |v| opts[:out] = v }
        end
        parse!(parser, argv) && opts
      end

      def gate(opts)
        %i[app base endpoint].each { |key| raise UsageError, "gate needs --#{key} (rackbench gate --help)" if opts[key].to_s.empty? }
        check_run_options!(opts, "gate")
        steps = opts[:steps] || STEPS
        raise UsageError, "--steps #{steps}: a count of 1 or more" unless steps.positive?

        base, head = commits(opts)
        return said(:good, head, "the same tree as --base #{base.short}: the same code, not measured") if base.tree == head.tree

        dir = make_directory(opts[:out], "gate", "give another --out")
        step = BisectStep.new(dir: dir, good: base, run_argv: run_argv(opts), margin: opts[:margin_share], share: 1.0 / steps,
                              env: @env).call(head, 1)
        figures = step.ratio && format("B/A %.3f, CI %.3f-%.3f, %d rounds", step.ratio, step.ci_low, step.ci_high, step.rounds)
        said(step.verdict, head, [figures, step.why, "run directory #{step.dir}"].compact.join("; "))
      end

      # The base and HEAD of the app's repository, each with its tree.
      def commits(opts)
        repo = Search::Bisect::Path.top(Workload::App.resolve(opts[:app]).root)
        shas = [Search::Bisect::Path.commit!(repo, opts[:base], "--base"), Search::Bisect::Path.commit!(repo, "HEAD", "HEAD")]
        Search::Bisect::Path.new(repo, shas).commits
      end

      def said(verdict, head, why)
        words = { good: "good", bad: "bad", undecided: "undecided (git bisect skips it)", skipped: "skipped" }.fetch(verdict)
        @out.puts "#{head.short} (#{head.subject}): #{words}: #{why}"
        EXIT.fetch(verdict)
      end
    end
  end
end
