# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"
require_relative "../plan/setup"

module Rackbench
  module CLI
    # Which setup of RUN_B `rackbench compare` sets against which setup of
    # RUN_A: the --pair mappings (checked against the setups the runs hold),
    # or, when each run has exactly one setup and the labels differ (an A/B
    # of two configurations), that one pair. Also proposes the pairs a user
    # probably meant: setups in one run only whose labels name the same
    # configuration once the runtime is set aside ("puma x2:5 on yjit" and
    # "puma x2:5" or "puma x2:5 on mri").
    class ComparePairs
      attr_reader :setups_a, :setups_b

      # given: { setup of B => setup of A } from --pair, or nil.
      def initialize(setups_a, setups_b, given)
        @setups_a = setups_a
        @setups_b = setups_b
        given&.each { |b, a| check!(a, b) }
        check_distinct!(given) if given
        @pairs = given || automatic
      end

      # { setup of B => setup of A }, as Stats::Compare takes it.
      def to_h
        @pairs
      end

      # [[setup of A, setup of B], ...]: setups left in one run only that are
      # the same configuration but for the runtime (labels differing in the
      # runtime word, or in words that parse alike, such as "x2" and "x2:5"
      # for Puma), each with exactly one such partner. Labels that no longer
      # parse (an old run) are left out.
      def suggestions
        left_a = @setups_a - @pairs.values
        left_a -= @setups_b - @pairs.keys
        left_b = @setups_b - @pairs.keys - @setups_a
        match = ->(x, ys) { ys.select { |y| (k = bare(x)) && k == bare(y) } }
        left_a.filter_map do |a|
          bs = match.call(a, left_b)
          [a, bs.first] if bs.size == 1 && match.call(bs.first, left_a) == [a]
        end
      end

      private

      def automatic
        return {} unless @setups_a.size == 1 && @setups_b.size == 1 && @setups_a != @setups_b

        { @setups_b[0] => @setups_a[0] }
      end

      def check!(a, b)
        [["RUN_A", a, @setups_a], ["RUN_B", b, @setups_b]].each do |run, label, setups|
          next if setups.include?(label)

          raise UsageError, "--pair \"#{a}=#{b}\": #{run} has no setup #{label.inspect}#{Suggest.did_you_mean(label, setups)}; " \
                            "its setups: #{list(setups)}"
        end
      end

      # Two setups of B meeting the same setup of A would merge into one
      # cell; refuse, whether both were paired or one kept its own label.
      def check_distinct!(given)
        targets = @setups_b.map { |b| [b, given.fetch(b, b)] }
        targets.group_by(&:last).each do |a, bs|
          next if bs.size < 2

          raise UsageError, "--pair: RUN_B's setups #{list(bs.map(&:first))} would all be compared with RUN_A's " \
                            "#{a.inspect}; pair each setup of RUN_B with a different one"
        end
      end

      # The configuration a label names without its runtime (and the JVM
      # heap that goes with "on jruby"), or nil when it does not parse.
      def bare(label)
        Setup.parse(label).to_h.except("label", "runtime", "heap")
      rescue Error
        nil
      end

      def list(setups)
        setups.empty? ? "none" : setups.map(&:inspect).join(", ")
      end
    end
  end
end
