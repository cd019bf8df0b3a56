# frozen_string_literal: true

require_relative "../stats/ref_gate"
require_relative "../stats/decision_text"

module Rackbench
  module CLI
    # run --ref BASE --ref HEAD --fail-if-slower P: the gate's one sentence
    # (stderr) and exit status from Stats::RefGate: 1 slower beyond P, or a
    # ref's cells missing (it failed); 3 undecided; 0 passed.
    class RefGate
      def initialize(gate, percent:, share:)
        @gate = gate
        @percent = percent
        @share = share
      end

      def status = @gate.status

      def sentence
        return missing if @gate.missing.any?
        return slower if @gate.slower.any?
        return undecided if @gate.undecided.any?

        "Passed: no ref is slower than #{base} by more than #{beyond} in #{@gate.passed.size} cell(s): " \
          "#{cells(@gate.passed)} (#{flag})"
      end

      private

      def base = (@gate.passed + @gate.slower + @gate.undecided + @gate.missing).first&.base.to_s

      def beyond = "#{Stats::DecisionText.pct(@share * 100)}%"

      def flag = "--fail-if-slower #{format('%g', @percent)}"

      def missing
        "Gate failed: #{@gate.missing.size} cell(s) of #{base} have no counterpart: #{where(@gate.missing)} " \
          "(the ref failed: see the failures above); #{flag} cannot pass on missing measurements"
      end

      def slower
        "Slower: #{@gate.slower.map(&:head).uniq.join(', ')} is decided slower than #{base} by more than #{beyond} " \
          "in #{@gate.slower.size} cell(s): #{cells(@gate.slower)} (#{flag}, exit 1)"
      end

      def undecided
        "Undecided: #{@gate.undecided.size} cell(s) could be slower than #{base} by more than #{beyond} (the " \
          "family's 95% interval of req/s reaches below -#{beyond}): #{cells(@gate.undecided)}: add rounds " \
          "(--decide) or gate on a larger slowdown; #{flag} neither passes nor fails (exit 3)"
      end

      def cells(found)
        shown = found.first(5).map do |f|
          "#{where([f])} #{f.head} against #{f.base} (#{words(f)})"
        end
        shown.join("; ") + (found.size > 5 ? "; ..." : "")
      end

      # The decision's words; a passed cell whose two-sided outcome is
      # undecided (its interval reaches above +P, never below -P) says what
      # the gate read from it, one-sided: "undecided" in a passed sentence
      # read as a contradiction, and the run's answer may call the same pair,
      # the other way round, equivalent.
      def words(found)
        entry = found.entry or return "fewer than 2 rounds of both"
        d = entry.decision
        return Stats::DecisionText.phrase(entry) unless d.outcome == :undecided && @gate.passed.include?(found)

        "req/s not slower by more than #{beyond} (95% CI #{Stats::DecisionText.signed(d.low_pct)} to " \
          "#{Stats::DecisionText.signed(d.high_pct)})"
      end

      def where(found)
        found.first(5).map { |f| "#{f.endpoint} #{Stats::DecisionText.level_label(f.level, f.loop)}" }.uniq.join(", ")
      end
    end
  end
end
