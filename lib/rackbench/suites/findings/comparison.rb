# frozen_string_literal: true

require_relative "../../stats/summary"
require_relative "../../stats/decision"
require_relative "../../stats/decision_text"

module Rackbench
  module Suites
    module Findings
      # Two setups' req/s in one cell (endpoint x level): a ahead, b ahead or
      # level. decision: a's req/s against b's (Stats::Decision, or Flipped),
      # nil with fewer than 2 rounds on a side.
      Comparison = Struct.new(:a, :b, :a_values, :b_values, :decision, keyword_init: true) do
        def a_rps
          Stats::Summary.of(a_values).median
        end

        def b_rps
          Stats::Summary.of(b_values).median
        end

        def ratio
          b_rps.to_f.positive? ? a_rps / b_rps : Float::INFINITY
        end

        # :a or :b (decided ahead beyond the margin), :level (equivalent
        # within it; single run: medians within LEVEL) or :unclear (undecided).
        def verdict
          case decision&.outcome
          when :higher then :a
          when :lower then :b
          when :equivalent then :level
          when :undecided, :direction_higher, :direction_lower then :unclear
          else none? || (ratio - 1).abs < LEVEL ? :level : leader
          end
        end

        # Neither setup answered a request successfully.
        def none?
          a_rps.to_f.zero? && b_rps.to_f.zero?
        end

        def called?
          %i[a b].include?(verdict)
        end

        def leader
          a_rps >= b_rps ? :a : :b
        end

        def far?
          called? && (ratio >= FAR || ratio <= 1 / FAR)
        end

        # How far a is from b: "41x" when at least twice, else "+6%".
        def change
          return "#{b} served none" if b_rps.to_f.zero? && a_rps.to_f.positive?

          r = ratio
          return "#{format(r >= 10 ? '%.0f' : '%.1f', r)}x" if r >= FAR
          return "#{format((1 / r) >= 10 ? '%.0f' : '%.1f', 1 / r)}x less" if r.positive? && r <= 1 / FAR

          format("%+.0f%%", (r - 1) * 100)
        end

        # The decision in the words every report uses (Stats::DecisionText),
        # with its method: "decided: 95% CI +9% to +27%, paired over 3 rounds".
        def note
          d = decision
          if d.nil?
            return "single run: nothing decided" if a_values.size < 2 && b_values.size < 2
            return "fewer than 2 rounds on one side: nothing decided" if a_values.size < 2 || b_values.size < 2

            return "a round with no successful response: no ratio to decide"
          end
          ci = "95% CI #{Stats::DecisionText.signed(d.low_pct)} to #{Stats::DecisionText.signed(d.high_pct)}, #{how(d)}"
          case d.outcome
          when :higher, :lower then "decided: #{ci}"
          when :equivalent then "equivalent within +-#{Stats::DecisionText.pct(d.margin * 100)}%: #{ci}"
          else "undecided: #{ci}#{Stats::DecisionText.more(d)}"
          end
        end

        def how(decision)
          paired = decision.method == Stats::Decision::PAIRED
          paired ? "paired over #{decision.rounds} rounds" : "unpaired over #{a_values.size} and #{b_values.size} rounds"
        end
      end
    end
  end
end
