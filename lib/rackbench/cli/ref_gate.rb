# frozen_string_literal: true

require_relative "../stats/ref_gate"
require_relative "../stats/decision_text"
require_relative "../stats/gate_text"
require_relative "../stats/decisions"
require_relative "../stats/looks"

module Rackbench
  module CLI
    # run --ref BASE --ref HEAD --fail-if-slower P: the gate (Stats::RefGate,
    # a Stats::Gate) with its exit status and its sentence (Stats::GateText),
    # told what a run's undecided gate needs: after run --decide, what
    # stopped the rounds (DecideStop) and what would decide, never "add
    # rounds (--decide)" to a run that had it.
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

      # gate: a Stats::RefGate; percent: --fail-if-slower's value; share:
      # the gate's margin, which the gate holds (Stats::Gate#share).
      # where: a Stats::GateWhere (run --profile), nil without.
      def initialize(gate, percent:, share: gate.share, decide_stop: nil, where: nil)
        raise ArgumentError, "a gate at #{gate.share} told it is at #{share}" unless share == gate.share

        @gate = gate
        @percent = percent
        @stop = decide_stop
        @where = where
      end

      def status = @gate.status

      def sentence
        Stats::GateText.new(@gate, percent: @percent, to_decide: to_decide, cause: "the ref failed: see the failures above",
                                   where: @where).sentence
      end

      private

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
        found = @gate.undecided.select(&:entry).max_by { |f| f.decision.spread_pct } or return nil
        "the per-round spread of #{found.b}/#{found.a} at #{Stats::DecisionText.pct(found.decision.spread_pct)}% " \
          "(#{where(found)})"
      end

      def beyond_of(share) = "#{Stats::DecisionText.pct(share * 100)}%"

      def where(found) = "#{found.endpoint} #{Stats::DecisionText.level_label(found.level, found.loop)}"
    end
  end
end
