# frozen_string_literal: true

require_relative "../stats/compare"
require_relative "../stats/decision_text"

module Rackbench
  module CLI
    # `compare --fail-if-slower P`: a CI gate that passes, fails or says it
    # cannot tell, never passing on noise. req/s alone is decided again at
    # the gate's margin P (P = 0: the comparison's margin), unpaired, the
    # gate's cells one family at 5% (Stats::Compare#gate):
    #
    #   1  some cell is decided slower by more than P (its whole interval
    #      of B/A lies below 1 - P); or RUN_B lacks cells of RUN_A (fails
    #      closed: a failed setup or a run cut short cannot pass);
    #   3  none is, but some cell's interval reaches below 1 - P (undecided),
    #      or a cell has fewer than 2 repetitions in a run: more repetitions
    #      would tell;
    #   0  every cell is decided not slower by more than P.
    class CompareGate
      FAILED = 1
      UNDECIDED = 3

      # percent: the gate's P (>= 0, < 100); margin: the comparison's (a share).
      def initialize(compare, percent:, margin:)
        @compare = compare
        @percent = percent
        @share = percent.positive? ? percent / 100.0 : margin
      end

      # [exit status, the line for stderr or nil].
      def verdict(path_a, path_b)
        return missing(path_a, path_b) unless @compare.only_a.empty?

        found = @compare.gate(@share)
        return slower(found) if found[:slower].any?
        return undecided(found) if found[:undecided].any? || found[:untested].any?

        [0, nil]
      end

      private

      def beyond
        "#{Stats::DecisionText.pct(@share * 100)}%"
      end

      def flag
        "--fail-if-slower #{format('%g', @percent)}"
      end

      def missing(path_a, path_b)
        cells = @compare.only_a.map { |c| "#{c.endpoint} #{c.setup} c=#{c.level}" }
        [FAILED, "Gate failed: #{path_b} lacks #{cells.size} cell(s) of #{path_a}: #{cells.first(5).join('; ')}" \
                 "#{cells.size > 5 ? '; ...' : ''}; --fail-if-slower cannot pass on missing measurements (re-run, or compare without it)"]
      end

      def slower(found)
        others = found[:undecided].size + found[:untested].size
        [FAILED, "Slower: req/s is decided lower by more than #{beyond} in #{found[:slower].size} cell(s): " \
                 "#{cells(found[:slower])} (#{flag})#{others.positive? ? "; #{others} other cell(s) undecided" : ''}"]
      end

      def undecided(found)
        parts = []
        if found[:undecided].any?
          parts << "#{found[:undecided].size} cell(s) could be slower by more than #{beyond} (the family's 95% interval of req/s " \
                   "B/A reaches below -#{beyond}): #{cells(found[:undecided])}"
        end
        if found[:untested].any?
          parts << "#{found[:untested].size} cell(s) cannot be decided, with fewer than 2 repetitions in a run: " \
                   "#{found[:untested].first(5).map { |r| cell(r) }.join('; ')}"
        end
        [UNDECIDED, "Undecided: #{parts.join('; ')}: add repetitions (#{more(found)}) or gate on a larger slowdown; " \
                    "#{flag} neither passes nor fails (exit 3)"]
      end

      # "/hello puma x2:5 c=8 (slower by 12% (95% CI 8-16%))", or for an
      # undecided cell its interval alone: "(95% CI -12% to +3%)".
      def cells(found)
        text = Stats::DecisionText
        shown = found.first(5).map do |row, entry|
          d = entry.decision
          words = entry.decided? ? text.phrase(entry, label: nil) : "95% CI #{text.signed(d.low_pct)} to #{text.signed(d.high_pct)}"
          "#{cell(row)} (#{words})"
        end
        shown.join("; ") + (found.size > 5 ? "; ..." : "")
      end

      def cell(row)
        "#{row.endpoint} #{row.label} #{Stats::DecisionText.level_label(row.level, row.loop)}"
      end

      # The most any undecided cell would likely take, in each run.
      def more(found)
        extra = found[:undecided].filter_map do |_, entry|
          d = entry.decision
          d.rounds_needed && d.rounds_needed - d.rounds
        end.max
        return "run -r 3 or more" if extra.nil?
        return "even #{Stats::Decision::MAX_ROUNDS} more might not decide it" if extra >= Stats::Decision::MAX_ROUNDS

        "about #{[extra, 1].max} more in each run, -r"
      end
    end
  end
end
