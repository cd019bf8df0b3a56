# frozen_string_literal: true

require_relative "command"
require_relative "../store/run_dir"
require_relative "../stats/compare"
require_relative "../report/comparison"

module Rackbench
  module CLI
    # rackbench compare RUN_A RUN_B [--fail-if-slower PERCENT]: per cell in
    # both runs, the change in req/s, p99 and memory (when sampled), tested
    # with Welch's t-test (two-sided, alpha = 0.05) over the repetitions.
    class CompareCommand < Command
      def call(argv)
        opts = options(argv) or return 0
        raise UsageError, "give two run directories: rackbench compare RUN_A RUN_B" if argv.size < 2
        raise UsageError, "unexpected argument #{argv[2].inspect}; give two run directories" if argv.size > 2

        a, b = argv.map { |path| Store::RunDir.open(path) }
        compare = Stats::Compare.new(a.trials, paired(a.trials, b.trials, opts[:pairs]))
        Report::Comparison.new(compare, a: run(a), b: run(b), io: @out).render
        print_notices(a, b)
        gate(compare, opts[:fail_if_slower], a, b)
      end

      private

      def options(argv)
        opts = {}
        parser = OptionParser.new do |o|
          o.banner = "Usage: rackbench compare RUN_A RUN_B [options]\n\n" \
                     "Compares two stored runs cell by cell (endpoint x setup x concurrency) with Welch's t-test\n" \
                     "over the repetitions (two-sided, alpha = 0.05). A change is reported only when the test\n" \
                     "supports it; otherwise \"same within noise\". Cells need 2 or more repetitions (run -r 3).\n\n"
          o.on("--pair A=B", "compare RUN_B's setup B with RUN_A's setup A (repeatable; automatic when each run has one setup)") do |v|
            a, b = v.split("=", 2)
            raise UsageError, "--pair #{v.inspect}: write \"SETUP IN RUN_A=SETUP IN RUN_B\"" if b.to_s.empty? || a.to_s.empty?

            (opts[:pairs] ||= {})[b.strip] = a.strip
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

      # B's trials with their setups renamed to the A setups they pair with:
      # the --pair mappings, or, when each run has exactly one setup and the
      # labels differ (an A/B of two configurations), that one pair.
      def paired(trials_a, trials_b, pairs)
        setups_a = trials_a.map { |t| t["setup"] }.uniq
        setups_b = trials_b.map { |t| t["setup"] }.uniq
        pairs ||= setups_a.size == 1 && setups_b.size == 1 && setups_a != setups_b ? { setups_b[0] => setups_a[0] } : {}
        pairs.each { |b, a| @out.puts "Pairing RUN_B's setup #{b.inspect} with RUN_A's #{a.inspect}." }
        trials_b.map { |t| pairs.key?(t["setup"]) ? t.merge("setup" => pairs[t["setup"]]) : t }
      end

      def run(store)
        { path: store.path, meta: store.meta }
      end

      # A CI gate fails closed: a run with no trials, or cells of RUN_A that
      # RUN_B lacks (a setup that failed, a run cut short), cannot pass it.
      def gate(compare, percent, a, b)
        return 0 if percent.nil?
        return gate_failure("#{b.path} has no trials") if b.trials.empty?
        return gate_failure("#{a.path} has no trials") if a.trials.empty?
        unless compare.only_a.empty?
          cells = compare.only_a.map { |c| "#{c.endpoint} #{c.setup} c=#{c.concurrency}" }
          return gate_failure("#{b.path} lacks #{cells.size} cell(s) of #{a.path}: #{cells.first(5).join('; ')}" \
                              "#{cells.size > 5 ? '; ...' : ''}")
        end

        slower = compare.slower_than(percent)
        return 0 if slower.empty?

        cells = slower.map do |r|
          ch = r.changes.find { |c| c.metric.key == "rps" }
          "#{r.endpoint} #{r.setup} c=#{r.concurrency} (#{format('%+.1f', ch.change_pct)}%)"
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
