# frozen_string_literal: true

require_relative "command"
require_relative "../store/run_dir"
require_relative "../stats/compare"
require_relative "../stats/margin"
require_relative "../report/comparison"
require_relative "options"
require_relative "compare_pairs"
require_relative "compare_gate"
require_relative "output_failed"

module Rackbench
  module CLI
    # rackbench compare RUN_A RUN_B [--margin P] [--fail-if-slower P]: per
    # cell in both runs, req/s, p99 and memory (when sampled) decided
    # unpaired (Stats::Compare: faster/slower, equivalent within the margin,
    # undecided), two families at 5% each (Stats::Decisions). Two runs with no cell in
    # common fail (exit 1), naming each run's setups and the --pair arguments
    # that would match setups differing only in the runtime: a comparison of
    # nothing must not pass as "no change".
    #
    # Exit: 0 compared (and the gate passed); 1 the gate found a decided
    # slowdown, or cells missing; 3 the gate could not decide (undecided
    # cells that could be slower, or cells with fewer than 2 repetitions);
    # 2 bad input.
    class CompareCommand < Command
      def call(argv)
        opts = options(argv) or return 0
        raise UsageError, "give two run directories: rackbench compare RUN_A RUN_B" if argv.size < 2
        raise UsageError, "unexpected argument #{argv[2].inspect}; give two run directories" if argv.size > 2

        a, b = argv.map { |path| Store::RunDir.open(path) }
        same_engines!(a, b)
        two_runs!(a, b)
        pairs = ComparePairs.new(setups(a), setups(b), opts[:pairs])
        margin, source = margin(opts, a)
        compare = Stats::Compare.new(a.trials, b.trials, pairs: pairs.to_h, margin: margin)
        # The gate is decided before anything is printed, so a reader that
        # stops early (| head -1) cannot turn a failed gate into a pass.
        status, line = compare.rows.empty? ? [1, nil] : gate(compare, opts[:fail_if_slower], a, b)
        OutputFailed.guard(status) do
          pairs.to_h.each { |sb, sa| @out.puts "Pairing RUN_B's setup #{sb.inspect} with RUN_A's #{sa.inspect}." }
          print_notices(a, b)
          raise Error, nothing_shared(a, b, pairs) if compare.rows.empty?

          Report::Comparison.new(compare, a: run(a), b: run(b), io: @out, suggested: pairs.suggestions, margin_source: source).render
          @err.puts line if line
        end
        status
      rescue OutputFailed
        say_gate(line) unless status&.zero? # a pass whose report was not written is not said
        raise
      end

      private

      # Declared once in CLI::Options, with their defaults; the margin's is RUN_A's first.
      OPTIONS = %i[pairs margin fail_if_slower].freeze
      BANNER = "Usage: rackbench compare RUN_A RUN_B [options]\n\n" \
               "Compares two stored runs cell by cell (endpoint x setup x concurrency): for req/s, p99 and PSS,\n" \
               "the ratio B/A with its 95% interval. Two runs made at different times cannot be paired, so\n" \
               "the repetitions are compared unpaired (Welch's t on the log values). Each is decided:\n" \
               "faster/slower by X% (the interval lies beyond the margin), equivalent within +-margin (it\n" \
               "lies inside), or undecided (with about how many more repetitions would decide it). Two\n" \
               "families, each held to 5% over every decision in it (Bonferroni): req/s, and p99 with PSS;\n" \
               "each interval shown is its family's 95% one. A cell needs 2 or more repetitions in each run\n" \
               "(run -r 3). A Note says when the runs' CPU-speed calibrations differ, or one drifted, by\n" \
               "more than the margin. Runs with no cell in common exit 1, naming each run's setups; where\n" \
               "labels differ only in the runtime (\"puma x2:5\" and \"puma x2:5 on yjit\") the message gives\n" \
               "the --pair to add. Runs measured with different load engines (wrk, ab ...) are refused (exit 1).\n\n"
      FOOTER = ["",
                "Exit status: 0 compared (and the gate passed); 1 a decided slowdown beyond --fail-if-slower, cells",
                "of RUN_A missing in RUN_B (with the gate), or no cell in common; 2 bad input; 3 the gate could not",
                "decide (undecided cells that could be slower, or cells with fewer than 2 repetitions): add",
                "repetitions, or gate on a larger slowdown."].freeze

      def options(argv)
        opts = parse_declared(argv, BANNER, OPTIONS, footer: FOOTER, rules: { margin: "RUN_A's, else #{Options::MARGIN_DEFAULT}" })
        opts && opts.merge(pairs: pairs(opts[:pairs]))
      end

      # --pair A=B ... -> {B => A}, nil when none is given.
      def pairs(given)
        given&.each_with_object({}) do |(a, b), pairs|
          raise UsageError, "--pair: RUN_B's setup #{b.inspect} is paired twice; give one --pair for it" if pairs.key?(b)

          pairs[b] = a
        end
      end

      # The margin (a share) and where it came from.
      def margin(opts, store_a)
        share, source = Stats::Margin.choose(opts[:margin], store_a.meta)
        [share, { given: "--margin", stored: "RUN_A's", default: "the default" }.fetch(source)]
      end

      # Two load engines measure differently (ab speaks HTTP/1.0 without
      # keep-alive, siege retries, wrk's closed loop ...): a difference
      # between runs made with different engines would be theirs.
      def same_engines!(a, b)
        engines = [a, b].map { |store| store.trials.map { |t| t["engine"] }.compact.uniq.sort }
        return if engines.include?([]) || engines[0] == engines[1]

        raise Error, "RUN_A #{a.path} was measured with #{engines[0].join(', ')} and RUN_B #{b.path} with " \
                     "#{engines[1].join(', ')}: load engines measure differently, so a difference would be theirs, not " \
                     "the change's; measure both runs with the same --engine"
      end

      # One run given as both RUN_A and RUN_B (the same directory, also by
      # another path or a link to it) would be "compared" with itself.
      def two_runs!(a, b)
        return unless File.identical?(a.path, b.path)

        raise UsageError, "RUN_A #{a.path} and RUN_B #{b.path} are one run directory: a run compared with itself says " \
                          "nothing about a change; give two runs (rackbench report #{a.path} shows one run's spread)"
      end

      def setups(store)
        store.trials.map { |t| t["setup"] }.uniq
      end

      # One line: what each run holds, why no cell met, and what to do.
      def nothing_shared(a, b, pairs)
        held = [["RUN_A", a, pairs.setups_a], ["RUN_B", b, pairs.setups_b]].map do |run, store, setups|
          setups.empty? ? "#{run} #{store.path} has no trials" : "#{run} #{store.path} has #{plural(setups.size, 'setup')} #{list(setups)}"
        end
        "no cell (endpoint, setup, concurrency) is in both runs, so nothing was compared: #{held.join('; ')}; " \
          "#{nothing_shared_advice(a, b, pairs)}"
      end

      def nothing_shared_advice(a, b, pairs)
        return "both need trials to compare (re-run the empty one)" if a.trials.empty? || b.trials.empty?

        suggested = pairs.suggestions
        unless suggested.empty?
          return "setups that are the same configuration but for the runtime are not paired by themselves; to compare them add " \
                 "#{Report::Comparison.pair_arguments(suggested)}"
        end
        met = pairs.setups_a & pairs.setups_b.map { |s| pairs.to_h.fetch(s, s) }
        return "to compare setups with different labels add --pair \"SETUP IN RUN_A=SETUP IN RUN_B\"" if met.empty?

        apart = { "endpoints" => ->(t) { t["endpoint"] }, "load levels" => ->(t) { t["rate"] || t["concurrency"] } }
        apart = apart.filter_map do |name, of|
          in_a, in_b = [a, b].map { |store| store.trials.map(&of).uniq }
          "#{name} A: #{in_a.join(', ')}, B: #{in_b.join(', ')}" if (in_a & in_b).empty?
        end
        "#{list(met)} #{met.size == 1 ? 'is' : 'are'} in both, but never at the same endpoint and load level" \
          "#{apart.empty? ? '' : " (#{apart.join('; ')})"}; measure the same endpoints and levels in both"
      end

      def list(labels)
        labels.map(&:inspect).join(", ")
      end

      def plural(count, word)
        count == 1 ? word : "#{word}s"
      end

      def run(store)
        { path: store.path, meta: store.meta, calibration: store.calibration }
      end

      # The gate (CompareGate): [its exit status, its line for stderr or nil].
      def gate(compare, percent, a, b)
        return [0, nil] if percent.nil?

        CompareGate.new(compare, percent: percent, margin: compare.margin).verdict(a.path, b.path)
      end

      # The gate's line after the report could not be written (stdout
      # closed): still said on stderr when stderr can be written.
      def say_gate(line)
        @err.puts line if line
      rescue IOError, SystemCallError
        nil
      end
    end
  end
end
