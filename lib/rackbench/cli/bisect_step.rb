# frozen_string_literal: true

require "stringio"
require_relative "../error"
require_relative "../run_file"
require_relative "../store/run_dir"
require_relative "../stats/ref_gate"
require_relative "../stats/gate"
require_relative "../stats/looks"
require_relative "../search/bisect/step"

module Rackbench
  module CLI
    # One step of rackbench bisect: a commit decided against good by a whole
    # `rackbench run --app APP --ref GOOD --ref COMMIT --decide
    # --fail-if-slower MARGIN` (CLI::RunCommand, called in this process: its
    # worktrees, interleaved fresh-boot rounds, --decide's stopping rule and
    # its gate), into the bisection's steps/NN-SHORT run directory, with a
    # plan file that gives the run's looks the step's share of the rate
    # (rate_share: Search::Bisect::Budget). The run's lines go to
    # steps/NN-SHORT.log. The verdict is the gate's (Stats::RefGate) read back
    # from the stored rounds: slower is :bad, passed :good, undecided
    # :undecided; a commit whose app did not boot (its cells missing, or
    # refused as a --ref: not in that commit, gems not installed) :skipped.
    # With base: (the found commit against its parent) the run's first ref
    # is base instead of good, into steps/NN-SHORT-on-BASE.
    class BisectStep
      # settings: the run's options (Hash of strings, see BisectCommand#run_argv).
      def initialize(dir:, good:, run_argv:, margin:, share:, env:)
        @dir = dir
        @good = good
        @run_argv = run_argv
        @margin = margin
        @share = share
        @env = env
        @number = Dir.glob(File.join(dir, "steps", "*.log")).size
      end

      def call(commit, _index, base: nil)
        @number += 1
        against = base || @good
        out = File.join(@dir, "steps", format("%02d-%s%s", @number, commit.short, base ? "-on-#{base.short}" : ""))
        status, text = measure(commit, out, against)
        RunFile.replace("#{out}.log", text)
        read(commit, out, status, text, against).tap { |step| step.base = base&.sha }
      end

      private

      def plan_file
        path = File.join(@dir, "step-plan.rb")
        RunFile.replace(path, "# rackbench bisect: each step's share of the 5% rate (Search::Bisect::Budget)\n" \
                              "rate_share #{@share}\n")
        path
      end

      def measure(commit, out, against)
        require_relative "run"
        io = StringIO.new
        argv = ["run", plan_file, *@run_argv, "--ref", against.sha, "--ref", commit.sha, "-o", out, "--quiet"]
        status = RunCommand.new(out: io, err: io, env: @env).call(argv.drop(1))
        [status, io.string]
      rescue UsageError => e
        raise unless e.message.start_with?("--ref")
        raise Error, "good #{@good.short} cannot be measured: #{e.message}" if e.message.start_with?("--ref #{@good.sha}")

        [:refused, "#{io.string}Error: #{e.message}\n"]
      rescue Error => e
        [:failed, "#{io.string}Error: #{e.message}\n"]
      end

      def read(commit, out, status, text, against)
        base = { sha: commit.sha, tree: commit.tree, subject: commit.subject, dir: out }
        return skipped(base, text) unless status.is_a?(Integer) && File.directory?(out)

        store = Store::RunDir.open(out)
        base[:installs] = installs(store.meta)
        looks = Stats::Looks.for_config(store.meta["config"])
        labels = [against.short, commit.short]
        gate = Stats::RefGate.new(store.trials, [[labels.first, labels]], margin: @margin, looks: looks)
        good_cells = store.trials.count { |t| t["setup"] == labels.first && t["rps"] }
        if good_cells.zero?
          return skipped(base, text) unless against == @good

          raise Error, "good #{@good.short} served nothing in #{out} (see #{out}.log): bisect needs a good that boots"
        end

        cell = gate.cells.find(&:entry)
        return step(base, cell.decision) if cell
        return skipped(base, text) if store.trials.none? { |t| t["setup"] == labels.last && t["rps"] }

        Search::Bisect::Step.new(**base, verdict: :undecided, why: "no decision: fewer than #{Stats::Looks::FIRST} rounds " \
                                                                   "of both, or a cell not valid (too short for its latency: " \
                                                                   "a longer -d); see #{out}.log")
      end

      # "gems for e21550f's Gemfile.lock installed from the Gemfile's sources
      # (bundle install --local, then bundle install, 38 s)" per ref, or nil.
      def installs(meta)
        lines = Array(meta["bundle_installs"]).map do |i|
          "gems for #{i['sha'].to_s[0, 7]}'s Gemfile.lock installed from #{i['source']} (#{i['command']}, #{i['seconds'].to_f.round} s)"
        end
        lines.empty? ? nil : lines
      end

      def step(base, decision)
        verdict = { slower: :bad, passed: :good, undecided: :undecided }.fetch(Stats::Gate.verdict(decision, @margin))
        Search::Bisect::Step.new(**base, verdict: verdict, outcome: decision.outcome, ratio: decision.ratio,
                                         ci_low: decision.ci_low, ci_high: decision.ci_high, rounds: decision.rounds,
                                         rounds_needed: decision.rounds_needed)
      end

      # The first "Error:" or failure line the run printed, as the reason
      # (a commit with no trial that served: it did not boot or was refused).
      def skipped(base, text)
        line = text.lines.map(&:strip).find { |l| l.start_with?("Error:") || l.match?(/failed|did not boot|exited/i) }
        why = "it could not be measured (#{line ? line.delete_prefix('Error: ')[0, 200] : 'no rounds stored'}; " \
              "log: #{base[:dir]}.log)"
        Search::Bisect::Step.new(**base, verdict: :skipped, why: why)
      end
    end
  end
end
