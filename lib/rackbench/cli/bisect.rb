# frozen_string_literal: true

require "json"
require "fileutils"
require "optparse"
require_relative "command"
require_relative "../store/json_lines"
require_relative "../workload/app"
require_relative "../workload/git_refs"
require_relative "../search/bisect/search"
require_relative "bisect_step"
require_relative "step_options"
require_relative "resume_trust"

module Rackbench
  module CLI
    # rackbench bisect --app PATH --good A --bad B -e ENDPOINT [-s SETUP] [--margin P]:
    # the first commit on the first-parent path from A to B after which
    # ENDPOINT is slower than A by more than P (Search::Bisect::Search), each
    # step a run --decide of that commit against A (CLI::BisectStep), the 5%
    # rate of naming a wrong commit spread over the steps
    # (Search::Bisect::Budget). The bisection's directory:
    #
    #   bisect.json       what was asked (app, good, bad, endpoint, run options, K)
    #   bisect.jsonl      one line per step decided, appended as it is made
    #   steps/NN-SHORT/   each step's run directory (its rounds; rackbench report reads it)
    #   steps/NN-SHORT.log  the run's own lines
    #
    # --resume DIR goes on from what bisect.jsonl holds: no tree decided
    # there is measured again. Exit 0: a commit named, or nothing to bisect;
    # 3: a range, not one commit (undecided, skipped commits, budget spent,
    # or a slowdown spread over commits: the one found is not slower than its
    # own parent by more than P).
    class BisectCommand < Command
      include StepOptions

      BANNER = "Usage: rackbench bisect --app PATH --good A --bad B -e ENDPOINT [-s SETUP] [--margin P] [options]\n\n" \
               "Finds the first commit on the first-parent path from A to B after which ENDPOINT is slower than A by\n" \
               "more than P: bad against good first, then a binary search; each step is a run --decide of that commit\n" \
               "against A (fresh-boot interleaved rounds, each commit in its own git worktree); the commit found is\n" \
               "then decided against its own parent (alone slower by more than P, or the slowdown spread over the\n" \
               "commits up to it). The steps share a 5% rate of naming a wrong commit (Bonferroni: each of\n" \
               "K = ceil(log2 N) + 3 steps at 5%/K).\n" \
               "Exit: 0 a commit named or nothing to bisect; 3 a range of commits, not one (a spread slowdown too);\n" \
               "1 a failure; 2 bad input.\n" \
               "docs/your-change.md, \"Bisecting\", shows a whole bisection.\n\n"
      FILE = "bisect.json"

      def call(argv)
        opts = options(argv) or return 0
        raise UsageError, "unexpected argument #{argv.first.inspect} (rackbench bisect --help)" unless argv.empty?

        opts = resumed(opts) if opts[:resume]
        check!(opts)
        app = Workload::App.resolve(opts[:app])
        path = Search::Bisect::Path.resolve(app.root, opts[:good], opts[:bad])
        dir = directory(opts)
        bisect(opts, path, dir)
      end

      private

      def options(argv)
        opts = {}
        parser = OptionParser.new do |o|
          o.banner = BANNER
          app_option(o, opts)
          o.on("--good REF", "a commit where ENDPOINT is as fast as it should be (required)") { |v| opts[:good] = v }
          o.on("--bad REF", "a later commit where it is slower; good must be its ancestor (required)") { |v| opts[:bad] = v }
          o.on("-e", "--endpoint PATH", "the endpoint to bisect (one, required)") { |v| opts[:endpoint] = v }
          run_options(o, opts)
          o.on("-o", "--out DIR", "the bisection's directory (default: rackbench-runs/bisect-<timestamp>)") { |v| opts[:out] = v }
          o.on("--resume DIR", "go on with a bisection (with --app, the same app again): its steps decided are not measured again") do |v|
            opts[:resume] = v
          end
        end
        parse!(parser, argv) && opts
      end

      def check!(opts)
        %i[app good bad endpoint].each do |key|
          raise UsageError, "bisect needs --#{key} (rackbench bisect --help)" if opts[key].to_s.empty?
        end
        check_run_options!(opts, "bisect")
      end

      def directory(opts)
        return opts[:resume] if opts[:resume]

        make_directory(opts[:out], "bisect", "give another --out, or --resume DIR to go on with a bisection")
      end

      # --resume DIR: the bisection's own options, from bisect.json. A
      # directory is data (as run --resume's, CLI::ResumeTrust): the app it
      # names is booted only when --app names it again, the same app.
      def resumed(opts)
        dir = opts[:resume]
        stored = JSON.parse(File.read(File.join(dir, FILE)), symbolize_names: true)
        others = opts.keys - %i[resume app setup_cmd]
        raise UsageError, "--resume takes no other options (#{others.join(', ')}): the bisection's are in #{dir}/#{FILE}" if others.any?

        trusted!(dir, stored[:options].fetch(:app).to_s, opts[:app])
        ResumeTrust.bisect_setup!(dir, stored[:options][:setup_cmd], opts[:setup_cmd]) # a shell command, named again
        stored[:options].merge(resume: File.expand_path(dir))
      rescue Errno::ENOENT, Errno::ENOTDIR, JSON::ParserError, NoMethodError, KeyError, TypeError
        raise UsageError, "--resume #{dir}: no bisection there (#{FILE} missing or unreadable)"
      end

      def trusted!(dir, stored, given)
        again = ResumeTrust.bisect_command(dir)
        raise UsageError, "--resume boots the app only when you name it again (a directory is data): #{again}" if given.nil?
        return if same_app?(stored, given)

        raise UsageError, "--resume #{dir}: --app #{given} is not the bisection's app (#{stored}): #{again}"
      end

      def same_app?(stored, given)
        [stored, given].map { |p| File.realpath(File.expand_path(p)) }.uniq.size == 1
      rescue SystemCallError
        false
      end

      def journal(dir) = Store::JsonLines.new(File.join(dir, "bisect.jsonl"), kind: "bisect step", required: %w[sha verdict])

      def bisect(opts, path, dir)
        budget = Search::Bisect::Budget.new(path.size)
        argv = run_argv(opts)
        save(dir, opts, path, budget) unless opts[:resume]
        say_start(opts, path, budget, dir)
        known = opts[:resume] ? journal(dir).read.map { |row| Search::Bisect::Step.from_h(row) } : []
        decider = BisectStep.new(dir: dir, good: path.good, run_argv: argv, margin: opts[:margin_share], share: budget.share, env: @env)
        outcome = begin
          Search::Bisect::Search.new(path, decider: decider, budget: budget, known: known,
                                           on_step: ->(step) { stepped(dir, step, known) }).call
        rescue Interrupted => e
          e.run_dir = dir # the steps decided are in bisect.jsonl: --resume goes on from them
          raise
        end
        lines = outcome.lines(endpoint: opts[:endpoint], margin: opts[:margin_share])
        @out.puts lines
        @err.puts "Bisection directory: #{dir} (#{outcome.spent} decisions measured of #{budget.decisions}; #{budget.describe})"
        outcome.status
      end

      def save(dir, opts, path, budget)
        meta = { options: opts.except(:margin_share, :resume), repo: path.repo, good: path.good.to_h, bad: path.bad.to_h,
                 commits: path.size, decisions: budget.decisions, rate_share: budget.share, method: budget.describe }
        RunFile.replace(File.join(dir, FILE), "#{JSON.pretty_generate(meta)}\n")
      end

      def say_start(opts, path, budget, dir)
        Workload::GitRefs.notes(File.dirname(File.expand_path(Workload::App.resolve(opts[:app]).config_ru)), []).each do |n|
          @err.puts "Note: #{n}"
        end
        @err.puts "Bisecting #{opts[:endpoint]}: #{path.size} commits after good #{path.good.short} up to bad " \
                  "#{path.bad.short}, at most #{budget.decisions} decisions (#{dir})"
      end

      # Each step said as it is decided, and stored (a known one is already).
      def stepped(dir, step, known)
        measured = step.dir && known.none? { |k| k.dir == step.dir }
        journal(dir).append([step.to_h]) if measured && step.why.to_s !~ /measured before/
        figures = step.ratio ? format(" B/A %.3f (CI %.3f-%.3f, %d rounds)", step.ratio, step.ci_low, step.ci_high, step.rounds) : ""
        against = step.base ? " against its parent #{step.base[0, 7]}" : ""
        @err.puts "  #{step.short}#{against} #{step.verdict}#{figures}#{step.why ? ": #{step.why}" : ''}"
        Array(step.installs).each { |line| @err.puts "    #{line}" } if measured
      end
    end
  end
end
