# frozen_string_literal: true

require_relative "../stats/ref_gate"
require_relative "../stats/decision_text"
require_relative "../stats/decisions"
require_relative "../stats/looks"

module Rackbench
  module CLI
    # run --ref BASE --ref HEAD --fail-if-slower P: the gate's one sentence
    # (stderr) and exit status from Stats::RefGate: 1 slower beyond P, or a
    # ref's cells missing (it failed); 3 undecided; 0 passed. Undecided
    # after run --decide says what stopped the rounds (DecideStop) and what
    # would decide, never "add rounds (--decide)" to a run that had it.
    class RefGate
      # Why run --decide added no more rounds, read from the stored rounds
      # (the run's report is rendered from what was stored): :max_rounds
      # (they were all measured), :decided (every pair of the run's own
      # family was decided at --margin: the gate's family and margin are
      # not that), or :time_budget (neither: another round would not fit).
      DecideStop = Struct.new(:reason, :rounds, :config, keyword_init: true)

      # nil without --decide.
      def self.decide_stop(trials, config)
        return nil unless config[:decide]

        rounds = Stats::Decisions.rounds_of(trials)
        reason = if rounds >= config[:max_rounds] then :max_rounds
                 elsif Stats::Decisions.for_run(trials, margin: config[:margin], looks: Stats::Looks.for_config(config))
                                       .open_neighbours.empty? then :decided
                 else :time_budget
                 end
        DecideStop.new(reason: reason, rounds: rounds, config: config)
      end

      def initialize(gate, percent:, share:, decide_stop: nil)
        @gate = gate
        @percent = percent
        @share = share
        @stop = decide_stop
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
          "family's 95% interval of req/s reaches below -#{beyond}): #{cells(@gate.undecided)}: #{to_decide}; " \
          "#{flag} neither passes nor fails (exit 3)"
      end

      # What would decide the undecided cells, after what stopped the rounds.
      def to_decide
        spread = widest_spread
        return "add rounds (--decide) or gate on a larger slowdown" unless @stop && spread

        config = @stop.config
        ran_out, more = case @stop.reason
                        when :max_rounds then ["stopped at --max-rounds #{config[:max_rounds]} (#{@stop.rounds} rounds)", "a larger --max-rounds"]
                        when :time_budget
                          ["stopped after #{@stop.rounds} rounds: another round would not fit in --time-budget " \
                           "#{format('%g', config[:decide_time])} s,", "a larger --time-budget"]
                        else
                          ["stopped after #{@stop.rounds} rounds, every pair of the run decided at --margin " \
                           "#{beyond_of(config[:margin])}, which is not the gate's question,", "more rounds (-r #{@stop.rounds * 2})"]
                        end
        quiet = config[:cpus] ? "rackbench doctor" : "--cpus auto; rackbench doctor"
        "--decide #{ran_out} with #{spread}; to decide: #{more}, or a smaller spread from a longer -d " \
          "(#{format('%g', config[:duration])} s now) or a quieter machine (#{quiet}), or gate on a larger slowdown"
      end

      # "the per-round spread of HEAD/BASE at 12% (/work c=2)": the widest
      # of the undecided cells (Stats::Decision#spread_pct: the standard
      # deviation of a round's log ratio), the one that held the gate open.
      def widest_spread
        found = @gate.undecided.select(&:entry).max_by { |f| f.entry.decision.spread_pct } or return nil
        "the per-round spread of #{found.head}/#{found.base} at #{Stats::DecisionText.pct(found.entry.decision.spread_pct)}% " \
          "(#{where([found])})"
      end

      def beyond_of(share) = "#{Stats::DecisionText.pct(share * 100)}%"

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
