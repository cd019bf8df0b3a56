# frozen_string_literal: true

require_relative "command"
require_relative "../store/run_dir"
require_relative "../stats/compare"
require_relative "../report/comparison"
require_relative "compare_pairs"

module Rackbench
  module CLI
    # rackbench compare RUN_A RUN_B [--fail-if-slower PERCENT]: per cell in
    # both runs, the change in req/s, p99 and memory (when sampled), tested
    # with Welch's t-test (two-sided, alpha = 0.05) over the repetitions.
    # Two runs with no cell in common fail (exit 1), naming each run's setups
    # and the --pair arguments that would match setups differing only in the
    # runtime: a comparison of nothing must not pass as "no change".
    class CompareCommand < Command
      def call(argv)
        opts = options(argv) or return 0
        raise UsageError, "give two run directories: rackbench compare RUN_A RUN_B" if argv.size < 2
        raise UsageError, "unexpected argument #{argv[2].inspect}; give two run directories" if argv.size > 2

        a, b = argv.map { |path| Store::RunDir.open(path) }
        pairs = ComparePairs.new(setups(a), setups(b), opts[:pairs])
        pairs.to_h.each { |sb, sa| @out.puts "Pairing RUN_B's setup #{sb.inspect} with RUN_A's #{sa.inspect}." }
        compare = Stats::Compare.new(a.trials, b.trials, pairs: pairs.to_h)
        print_notices(a, b)
        raise Error, nothing_shared(a, b, pairs) if compare.rows.empty?

        Report::Comparison.new(compare, a: run(a), b: run(b), io: @out, suggested: pairs.suggestions).render
        gate(compare, opts[:fail_if_slower], a, b)
      end

      private

      def options(argv)
        opts = {}
        parser = OptionParser.new do |o|
          o.banner = "Usage: rackbench compare RUN_A RUN_B [options]\n\n" \
                     "Compares two stored runs cell by cell (endpoint x setup x concurrency) with Welch's t-test\n" \
                     "over the repetitions (two-sided, alpha = 0.05). A change is reported only when the test\n" \
                     "supports it; otherwise \"same within noise\". Cells need 2 or more repetitions (run -r 3).\n" \
                     "Runs with no cell in common exit 1, naming each run's setups; where labels differ only in\n" \
                     "the runtime (\"puma x2:5\" and \"puma x2:5 on yjit\") the message gives the --pair to add.\n\n"
          o.on("--pair A=B", "compare RUN_B's setup B with RUN_A's setup A, e.g. --pair \"puma x2:5=puma x2:5 on yjit\"",
               "(repeatable; automatic when each run has one setup; rows show \"A → B\")") do |v|
            a, b = v.split("=", 2).map { |label| label.to_s.strip.squeeze(" ") }
            raise UsageError, "--pair #{v.inspect}: write \"SETUP IN RUN_A=SETUP IN RUN_B\"" if b.to_s.empty? || a.to_s.empty?
            raise UsageError, "--pair: RUN_B's setup #{b.inspect} is paired twice; give one --pair for it" if opts[:pairs]&.key?(b)

            (opts[:pairs] ||= {})[b] = a
          end
          o.on("--fail-if-slower PERCENT", "exit 1 when a cell's req/s is significantly lower in RUN_B by more than PERCENT") do |v|
            opts[:fail_if_slower] = percent(v)
          end
        end
        parse!(parser, argv) && opts
      end

      def percent(text)
        value = Float(text.to_s.delete_suffix("%"))
        raise ArgumentError if value.negative? || !value.finite?

        value
      rescue ArgumentError
        raise UsageError, "--fail-if-slower takes a percentage of 0 or more, like 5 or 2.5; got #{text.inspect}"
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
        { path: store.path, meta: store.meta }
      end

      # A CI gate fails closed: cells of RUN_A that RUN_B lacks (a setup that
      # failed, a run cut short) cannot pass it. (Runs without a cell in
      # common, an empty one included, never get here: see nothing_shared.)
      def gate(compare, percent, a, b)
        return 0 if percent.nil?

        unless compare.only_a.empty?
          cells = compare.only_a.map { |c| "#{c.endpoint} #{c.setup} c=#{c.concurrency}" }
          return gate_failure("#{b.path} lacks #{cells.size} cell(s) of #{a.path}: #{cells.first(5).join('; ')}" \
                              "#{cells.size > 5 ? '; ...' : ''}")
        end

        slower = compare.slower_than(percent)
        return 0 if slower.empty?

        cells = slower.map do |r|
          ch = r.changes.find { |c| c.metric.key == "rps" }
          "#{r.endpoint} #{r.label} c=#{r.concurrency} (#{format('%+.1f', ch.change_pct)}%)"
        end
        @err.puts "Slower: req/s is significantly lower by more than #{format('%g', percent)}% in #{slower.size} cell(s): " \
                  "#{cells.join('; ')} (--fail-if-slower #{format('%g', percent)})"
        1
      end

      def gate_failure(why)
        @err.puts "Gate failed: #{why}; --fail-if-slower cannot pass on missing measurements (re-run, or compare without it)"
        1
      end
    end
  end
end
