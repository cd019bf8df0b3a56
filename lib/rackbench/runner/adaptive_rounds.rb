# frozen_string_literal: true

require_relative "../clock"
require_relative "../stats/decisions"
require_relative "../stats/decision_text"
require_relative "../stats/race"

module Rackbench
  class Runner
    # run --decide: after the planned rounds, one more round at a time
    # (every setup once, in the round's own random order: Plan#round) until
    # every pair of neighbours in each cell's req/s ranking is decided
    # (faster, slower or equivalent within the margin: Stats::Decisions, the
    # run's req/s family), each look at its share of the rate
    # (Stats::Looks: alpha spending over a look after every round from
    # round 3, or the planned rounds, to --max-rounds, so stopping at the
    # first decided look keeps the stated rate), or until --max-rounds rounds are done
    # or another round would not fit in --time-budget (judged on the last
    # round's duration, monotonic clock, counted from the run's start). What
    # is still undecided then is said in one line: how many pairs, the
    # widest, and where each is listed with the rounds it would likely take.
    #
    # With three or more setups each cell is a race (Stats::Race): a round
    # measures only the open cells' contenders (the block gets the race, and
    # Runner#run_round asks it), and the run ends when every cell has a
    # winner or an equivalence group of leaders.
    class AdaptiveRounds
      def initialize(plan:, store:, listener:, started:)
        @plan = plan
        @config = plan.config
        @store = store
        @listener = listener
        @started = started
      end

      # Yields each added round's number and the race (nil: not a race); the
      # block measures it.
      def call
        rep = [@config[:repeat], stored_rounds].max
        last = nil
        looks = Stats::Looks.for_config(@config)
        loop do
          race = race(looks)
          return race_loop(race, rep, last, looks) { |r, x| yield r, x } if race

          decisions = Stats::Decisions.for_run(@store.trials, margin: @config[:margin], looks: looks)
          open = decisions.open_neighbours
          return settled(decisions, rep) if open.empty?

          why = stop_reason(rep, last)
          return undecided(open, rep, why) if why

          rep += 1
          @listener.note("--decide: #{open.size} pair(s) undecided after #{rep - 1} rounds; measuring round #{rep}")
          t0 = Clock.now
          yield rep, nil
          last = Clock.now - t0
        end
      end

      private

      def race(looks)
        return nil unless Stats::Race.on?(@config, @plan.setups.size)

        Stats::Race.for_run(@store.trials, margin: @config[:margin], looks: looks)
      end

      # The race's loop: a round for the open cells' contenders until every
      # cell is decided, --max-rounds or the budget.
      def race_loop(race, rep, last, looks)
        loop do
          open = race.open
          return race_settled(race, rep) if open.empty? && race.cells.any?
          return settled(Stats::Decisions.for_run(@store.trials, margin: @config[:margin], looks: looks), rep) if race.cells.empty?

          why = stop_reason(rep, last)
          return race_undecided(race, open, rep, why) if why

          rep += 1
          racing = open.sum { |c| c.contenders.size }
          @listener.note("--decide: #{open.size} #{open.size == 1 ? 'cell' : 'cells'} still racing after #{rep - 1} rounds " \
                         "(#{racing} contenders); measuring round #{rep}")
          t0 = Clock.now
          yield rep, race
          last = Clock.now - t0
          race = Stats::Race.for_run(@store.trials, margin: @config[:margin], looks: looks)
        end
      end

      def race_settled(race, rep)
        @listener.note("--decide: every cell's race is decided after #{rep} #{rep == 1 ? 'round' : 'rounds'} " \
                       "(#{race.cells.count { |c| c.outcome == :winner }} winners, " \
                       "#{race.cells.count { |c| c.outcome == :tie }} equivalence groups)")
      end

      def race_undecided(race, open, rep, why)
        names = open.first(3).map do |c|
          "#{c.endpoint} #{Stats::DecisionText.level_label(c.level, c.loop)} (#{c.contenders.join(', ')})"
        end
        more = open.size > 3 ? " and #{open.size - 3} more" : ""
        @listener.warning("--decide stopped after #{rep} rounds (#{why}) with #{open.size} of #{race.cells.size} " \
                          "#{race.cells.size == 1 ? 'race' : 'races'} undecided: #{names.join('; ')}#{more}; " \
                          "each is in the Answer of rackbench report #{@store.path}")
      end

      def settled(decisions, rep)
        rounds = "#{rep} #{rep == 1 ? 'round' : 'rounds'}"
        if decisions.entries.none? { |e| e.metric == "rps" }
          return @listener.note("--decide: no pair of valid cells to decide after #{rounds}#{invalid(decisions)}")
        end

        @listener.note("--decide: every neighbouring pair is decided after #{rounds}#{invalid(decisions)}")
      end

      # Cells not valid are never decided, and more rounds would not make them so.
      def invalid(decisions)
        bad = decisions.invalid.map { |c| "#{c.endpoint} #{c.setup} #{Stats::DecisionText.level_label(c.level, c.loop)}" }.uniq
        return "" if bad.empty?

        "; #{bad.size} cell(s) not valid, so not decided (see the notes under the tables): #{bad.first(5).join('; ')}"
      end

      def stored_rounds
        @store.trials.map { |t| t["repetition"].to_i }.max.to_i
      end

      def stop_reason(rep, last)
        return "--max-rounds #{@config[:max_rounds]} reached" if rep >= @config[:max_rounds]

        spent = Clock.now - @started
        budget = @config[:decide_time]
        return nil if last.nil? ? spent < budget : spent + last <= budget

        "another round (#{last&.round || '?'} s) would not fit in --time-budget #{budget.round} s"
      end

      # One line a first screen holds (at most LINE characters): how many
      # pairs, the widest one or two (the widest interval of req/s, B/A's
      # high end over its low end) as far as they fit, and where every pair
      # is said with its interval: the Decisions under the tables, which
      # rackbench report DIR prints again. A run with 33 pairs open had a
      # warning of 4,792 characters listing each.
      LINE = 300

      def undecided(open, rep, why)
        count = "#{open.size} #{open.size == 1 ? 'pair' : 'pairs'}"
        head = "--decide stopped after #{rep} rounds (#{why}) with #{count} still undecided"
        tail = "; #{open.size == 1 ? 'it is' : 'all are'} in the Decisions of rackbench report #{@store.path}"
        shown = widest(open).take(2).each_with_object([]) do |text, kept|
          break kept if head.size + tail.size + kept.sum { |k| k.size + 2 } + text.size + 14 > LINE

          kept << text
        end
        label = open.size == 1 ? ": " : "; the widest: "
        @listener.warning(shown.empty? ? "#{head}#{tail}" : "#{head}#{label}#{shown.join('; ')}#{tail}")
      end

      # The open pairs' words, widest interval first (no look yet last).
      def widest(open)
        open.sort_by { |*, entry| entry ? -entry.decision.ci_high / entry.decision.ci_low : 0 }.map do |endpoint, level, a, b, entry|
          cell = "#{endpoint} #{Stats::DecisionText.level_label(level, entry&.loop)} #{b} against #{a}"
          entry ? "#{cell} (#{Stats::DecisionText.phrase(entry, label: nil)})" : "#{cell} (no look yet: fewer than #{Stats::Looks::FIRST} rounds of both)"
        end
      end
    end
  end
end
