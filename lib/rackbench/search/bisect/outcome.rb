# frozen_string_literal: true

module Rackbench
  module Search
    module Bisect
      # How a bisection ended, and its words (the answer first). kind:
      #   :found          one commit named: hi, its parent lo decided good
      #                   (own: hi against lo, :bad or open; nil when lo is
      #                   good itself);
      #   :spread         hi is the first commit past the margin, but own
      #                   says it is not slower than its parent by more than
      #                   the margin: the slowdown is spread over 1..hi;
      #   :no_slowdown    bad is not slower than good beyond the margin;
      #   :bad_open       bad against good undecided, or bad not measured;
      #   :undecided      a step undecided (open): the range lo..hi reached;
      #   :skipped_range  only skipped commits left between lo and hi;
      #   :budget_spent   the K decisions spent before one commit was left.
      # steps: {path index => Step}; first: bad's Step.
      Outcome = Struct.new(:kind, :path, :lo, :hi, :first, :open, :own, :steps, :spent, :budget, keyword_init: true) do
        def found? = kind == :found
        # 0: a commit named or nothing to bisect; 3: a range, not a commit.
        def status = %i[found no_slowdown].include?(kind) ? 0 : 3
        def named = found? ? path[hi] : nil

        # The answer's lines: what was found first, then the skipped commits.
        def lines(endpoint:, margin:)
          words = OutcomeWords.new(self, endpoint: endpoint, margin: margin)
          [words.answer, *words.skipped]
        end
      end

      # The sentences of an Outcome (the slowdowns as percentages: 1 - B/A).
      class OutcomeWords
        def initialize(outcome, endpoint:, margin:)
          @o = outcome
          @endpoint = endpoint
          @margin = margin
        end

        def answer
          send(:"#{@o.kind}_words")
        end

        def skipped
          @o.steps.values.select { |s| s.verdict == :skipped }.map do |s|
            "skipped #{s.short} (#{s.subject}): #{s.why}; bisected around it"
          end
        end

        private

        def found_words
          culprit = @o.steps.fetch(@o.hi)
          "#{name(culprit)} made #{@endpoint} slower by #{slowdown(culprit)}; its parent #{parent}#{own_words}"
        end

        # The found commit against its parent, when that was decided apart.
        def own_words
          own = @o.own or return ""
          return "; against its parent alone it is slower by #{slowdown(own)}" if own.verdict == :bad

          "; whether it alone carries the slowdown is undecided (against its parent: #{ratio_words(own)}#{more(own)})"
        end

        def spread_words
          culprit = @o.steps.fetch(@o.hi)
          "the slowdown on #{@endpoint} is spread over the #{@o.hi} commits after good #{@o.path.good.short} up to " \
            "#{culprit.short}, none named alone: #{name(culprit)} is the first slower than good by more than " \
            "#{pct(@margin)} (by #{slowdown(culprit)}), but against its parent #{@o.path[@o.lo].short} it is not slower " \
            "by more than #{pct(@margin)} (#{ratio_words(@o.own)})"
        end

        def parent
          return "#{@o.path.good.short} is good itself" if @o.lo.zero?

          step = @o.steps.fetch(@o.lo)
          "#{step.short} #{against_good(step)}"
        end

        def no_slowdown_words
          "#{name(@o.first)} (bad) is not slower than good #{@o.path.good.short} by more than #{pct(@margin)} on " \
            "#{@endpoint} (#{ratio_words(@o.first)}); nothing to bisect"
        end

        def bad_open_words
          first = @o.first
          if first.verdict == :skipped
            return "bad #{name(first)} could not be measured (#{first.why}); nothing to bisect: give a --bad that boots"
          end

          "bad #{name(first)} against good #{@o.path.good.short} is undecided on #{@endpoint} (#{ratio_words(first)}" \
            "#{more(first)}); nothing bisected: a larger --max-rounds, a longer -d or a larger --margin would tell"
        end

        def undecided_words
          "undecided at #{name(@o.open)} (#{ratio_words(@o.open)}#{more(@o.open)}): the first commit slower on " \
            "#{@endpoint} by more than #{pct(@margin)} is #{range}"
        end

        def skipped_range_words
          "the first commit slower on #{@endpoint} by more than #{pct(@margin)} is #{range}, and those before " \
            "#{@o.path[@o.hi].short} could not be measured"
        end

        def budget_spent_words
          "the bisection's #{@o.budget.decisions} decisions are spent: the first commit slower on #{@endpoint} by " \
            "more than #{pct(@margin)} is #{range}"
        end

        # "one of 4 commits after 9c1d0b2 up to a4f3e21 (a4f3e21 decided slower)".
        def range
          count = @o.hi - @o.lo
          last = @o.path[@o.hi]
          "one of #{count} commits after #{@o.path[@o.lo].short} up to #{last.short} (#{last.short} decided slower)"
        end

        def name(step) = "#{step.short} (#{step.subject})"

        def against_good(step)
          return "is good: #{step.why}" if step.ratio.nil?
          return "is equivalent to good (within ±#{pct(@margin)}; #{ratio_words(step)})" if step.outcome == :equivalent
          return "is faster than good by #{pct(step.ratio - 1)} (#{ratio_words(step)})" if step.outcome == :higher

          "is not slower than good by more than #{pct(@margin)} (#{ratio_words(step)})"
        end

        # "by 11% (95% CI 7–15%)": the slowdown 1 - B/A and its interval.
        def slowdown(step)
          "#{pct(1 - step.ratio)} (95% CI #{num(1 - step.ci_high)}–#{pct(1 - step.ci_low)})"
        end

        def ratio_words(step)
          return step.why.to_s if step.ratio.nil?

          "B/A #{format('%.3f', step.ratio)}, 95% CI #{format('%.3f', step.ci_low)}–#{format('%.3f', step.ci_high)}, " \
            "#{step.rounds} rounds"
        end

        def more(step)
          return "; about #{step.rounds_needed} rounds would decide it" if step.rounds_needed
          return "" if step.ratio.nil?

          "; not decidable by --max-rounds at this spread"
        end
        def pct(share) = "#{num(share)}%"
        def num(share) = format("%.3g", share * 100).sub(/\.0+\z/, "")
      end
    end
  end
end
