# frozen_string_literal: true

require_relative "decision_text"
require_relative "gate"

module Rackbench
  module Stats
    # The one sentence of a Stats::Gate, the same for `compare` and
    # `run --ref` (on stderr, and in a GitHub job's summary): its verdict
    # first, the cells behind it (five at most), the flag, and the exit:
    #
    #   Gate failed: B lacks N cell(s) of A: ... (why); --fail-if-slower P cannot pass on missing measurements
    #   Slower: B is decided slower than A by more than P% in N cell(s): ... (--fail-if-slower P, exit 1)
    #   Undecided: N cell(s) could be slower than A by more than P% (...): ...: to decide; ... (exit 3)
    #   Passed: B is not slower than A by more than P% in N cell(s): ... (--fail-if-slower P)
    #
    # What each command knows the gate does not: the names of A and B (two
    # run directories; or, by default, the cells' own labels: refs), what a
    # missing cell means (cause), what more of would decide (unit:
    # "repetitions" or "rounds") and the advice that would (to_decide);
    # with run --profile, where a slower cell's time went (where: a
    # Stats::GateWhere, its words after the cell's decision).
    class GateText
      SHOWN = 5

      def initialize(gate, percent:, to_decide:, cause:, unit: "rounds", a: nil, b: nil, where: nil)
        @gate = gate
        @where = where
        @percent = percent
        @to_decide = to_decide
        @cause = cause
        @unit = unit
        @a = a
        @b = b
      end

      def sentence
        case @gate.verdict
        when :missing then missing
        when :slower then slower
        when :undecided then undecided
        else passed
        end
      end

      private

      def a = @a || @gate.cells.first&.a.to_s
      def b(cells) = @b || cells.map(&:b).compact.uniq.join(", ")
      def beyond = "#{DecisionText.pct(@gate.share * 100)}%"
      def flag = "--fail-if-slower #{format('%g', @percent)}"

      def missing
        cells = @gate.missing
        "Gate failed: #{b(cells)} lacks #{cells.size} cell(s) of #{a}: #{names(cells)} (#{@cause}); #{flag} " \
          "cannot pass on missing measurements"
      end

      def slower
        others = @gate.undecided.size
        "Slower: #{b(@gate.slower)} is decided slower than #{a} by more than #{beyond} in #{@gate.slower.size} cell(s): " \
          "#{described(@gate.slower)} (#{flag}, exit 1)#{others.positive? ? "; #{others} other cell(s) undecided" : ''}"
      end

      def undecided
        few = @gate.too_few
        open = @gate.undecided - few
        parts = []
        if open.any?
          parts << "#{open.size} cell(s) could be slower than #{a} by more than #{beyond} (the family's 95% interval " \
                   "of req/s B/A reaches below -#{beyond}): #{described(open)}"
        end
        parts << "#{few.size} cell(s) cannot be decided, with fewer than 2 #{@unit} of both: #{names(few)}" if few.any?
        "Undecided: #{parts.join('; ')}: #{@to_decide}; #{flag} neither passes nor fails (exit 3)"
      end

      def passed
        "Passed: #{b(@gate.passed)} is not slower than #{a} by more than #{beyond} in #{@gate.passed.size} cell(s): " \
          "#{described(@gate.passed, passed: true)} (#{flag})"
      end

      # "/hello c=8 puma x2:5 (req/s slower by 12% (95% CI 8-16%)); ...";
      # with where, "(req/s slower by 12% (95% CI 8-16%): +0.41 ms per request in ...)".
      def described(cells, passed: false)
        shown(cells) { |cell| "#{name(cell)} (#{words(cell, passed)}#{where(cell)})" }
      end

      def names(cells) = shown(cells) { |cell| name(cell) }

      # ": +0.41 ms per request in Fibonacci.fib (fibonacci.rb) (+0.30 to +0.52)", or "".
      def where(cell)
        text = @where&.text(cell)
        text ? ": #{text}" : ""
      end

      def shown(cells, &block)
        cells.first(SHOWN).map(&block).join("; ") + (cells.size > SHOWN ? "; ..." : "")
      end

      # "/work c=2 HEAD@5d6e7f8 against main@1a2b3c4", or "/hello c=8 thin"
      # for one label met in two runs (and a missing cell: A's).
      def name(cell)
        label = cell.b.nil? || cell.b == cell.a ? cell.a : "#{cell.b} against #{cell.a}"
        "#{cell.endpoint} #{DecisionText.level_label(cell.level, cell.loop)} #{label}"
      end

      # The decision's words; a passed cell whose two-sided outcome is not
      # decided (its interval reaches above +P, never below -P) says what
      # the gate read from it, one-sided: "undecided" in a passed sentence
      # reads as a contradiction.
      def words(cell, passed)
        d = cell.decision
        return DecisionText.phrase(cell.entry, unit: @unit) unless passed && !d.decided? && d.outcome != :equivalent

        "req/s not slower by more than #{beyond} (95% CI #{DecisionText.signed(d.low_pct)} to " \
          "#{DecisionText.signed(d.high_pct)})"
      end
    end
  end
end
