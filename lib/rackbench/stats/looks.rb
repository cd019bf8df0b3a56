# frozen_string_literal: true

require_relative "boundary"

module Rackbench
  module Stats
    # When a run's rounds are looked at, and how much of the false-decision
    # rate each look may spend: the stopping rule of run --decide and of
    # tune's confirmation rounds.
    #
    # Every look at the data is a test. Deciding at the first look whose
    # plain 95% interval clears the margin, after every round from 2 to 20,
    # decides wrongly about five times as often as one look at a fixed
    # number of rounds (26% against 4.6% with a true ratio on the margin,
    # simulated through Stats::Decision: bench/decision_replay.rb). So the
    # rate is spent over the looks:
    #
    #   alpha spending (Lan & DeMets, Biometrika 1983): the share of the
    #   rate spent by a look after n of at most N rounds is g(n / N), with
    #   Lan & DeMets's Pocock-type function g(t) = ln(1 + (e - 1) t)
    #   (Kim & DeMets 1987), so g(0) = 0 and g(1) = 1. The first look spends
    #   g(n1 / N) (a look that is not taken leaves its share to the next),
    #   each later one g(n / N) - g(n_prev / N).
    #
    # A look's share is the level of that look's intervals: each side of
    # the interval misses with probability share x alpha. By the union
    # (Bonferroni) bound over the looks, the chance that any look's interval
    # misses is at most the sum of the shares x alpha = alpha, whatever the
    # correlation between looks and with Student's t at each look. The
    # intervals of all the looks are therefore one 95% confidence sequence,
    # and the one printed at the stop is the one the stop was decided on.
    #
    # The union bound ignores that looks are correlated, so it is
    # conservative. The exact group-sequential boundary of the same shares
    # (Stats::Boundary, boundary: :exact, calibrated for Student's t) is
    # narrower at every look after the first, and was measured against it
    # (bench/decide_speed.rb, issue 42): at normal rounds it keeps the rate
    # (4.0-4.7% at the margin) and decides a true 10% at 3% in 8.0 rounds
    # instead of 8.9, but the union bound's slack is also what keeps the
    # rate when rounds are not what Student's t assumes: with AR(1) 0.2
    # rounds the exact boundary was wrong at the margin in 8.7-9.0% of runs
    # (union 3.7-6.0%), with skew -1 in 10.3% (union 5.0%). So the union
    # bound stays the default, and :exact a measured alternative. Limits:
    # no look is allowed past N rounds: the design is fixed by --max-rounds
    # before the first round. The Pocock-type function was chosen over the
    # O'Brien-Fleming-type one by simulation (docs/methodology.md): with
    # Student's t on a few rounds, a look that spends almost nothing can
    # decide almost nothing, and the Pocock type reached decisions in fewer
    # rounds at the same error rate.
    #
    # A fixed design (one look, a run of -r N without --decide) spends the
    # whole rate at its one look.
    #
    # rate_share (0 < s <= 1, default 1): the share of the rate the whole
    # design may spend; every look's share is scaled by it. rackbench bisect
    # runs each step as a run with rate_share 1/K (the config key of that
    # name, not a flag), so its K decisions hold the rate together
    # (Bonferroni over the steps: Search::Bisect::Budget).
    class Looks
      # The first look is at 3 rounds or later: Student's t on 1 degree of
      # freedom (2 rounds) has tails too heavy for a share of the rate to
      # decide anything, so spending there would be spending for nothing.
      FIRST = 3

      # The spending functions (the share of the rate spent by t = n / N):
      # :pocock, the default, ln(1 + (e - 1) t); :obrien_fleming, Lan &
      # DeMets's O'Brien-Fleming type, 2 - 2 Phi(z(1 - rate/2) / sqrt(t)), as
      # a share of the rate. bench/decision_replay.rb measures both.
      SPENDINGS = %i[pocock obrien_fleming].freeze
      Z_975 = 1.959963984540054 # the normal quantile at 1 - 0.05 / 2

      # How a look's rate becomes its interval (bench/decide_speed.rb measures
      # each against the others; settings, not flags): boundary :union (each
      # look at its share alone, the default) or :exact (Stats::Boundary);
      # dependence true (Stats::Dependence widens the interval of rounds
      # found dependent, the default) or false.
      BOUNDARIES = %i[exact union].freeze

      attr_reader :first, :max, :spending, :boundary, :rate_share

      # One look at whatever number of rounds there is.
      def self.fixed(dependence: true, rate_share: 1.0) = new(first: nil, max: nil, dependence: dependence, rate_share: rate_share)

      # Looks after every round from `first` (at least FIRST) to `max`.
      def self.sequential(first:, max:, spending: :pocock, boundary: :union, dependence: true, rate_share: 1.0)
        raise ArgumentError, "spending: one of #{SPENDINGS.join(', ')}" unless SPENDINGS.include?(spending)
        raise ArgumentError, "boundary: one of #{BOUNDARIES.join(', ')}" unless BOUNDARIES.include?(boundary)

        new(first: [first.to_i, FIRST].max, max: max.to_i, spending: spending, boundary: boundary, dependence: dependence,
            rate_share: rate_share)
      end

      # A run's design from its configuration (meta.json's "config", string
      # keys, or the plan's, symbol keys): sequential for --decide.
      def self.for_config(config)
        return fixed unless config.respond_to?(:key?)

        get = ->(k) { config.key?(k) ? config[k] : (config[k.to_s] if config.is_a?(Hash)) }
        return fixed(rate_share: rate_share_of(get.call(:rate_share))) unless get.call(:decide) == true

        max = Integer(get.call(:max_rounds).to_s, 10, exception: false)
        first = Integer(get.call(:repeat).to_s, 10, exception: false) || 1
        # Not a flag: bench/decision_replay.rb sets it to measure the other function.
        spending = SPENDINGS.find { |s| s.to_s == get.call(:spending).to_s } || :pocock
        boundary = BOUNDARIES.find { |s| s.to_s == get.call(:boundary).to_s } || :union
        dependence = get.call(:dependence) != false
        share = rate_share_of(get.call(:rate_share))
        # Planned rounds at or past --max-rounds: --decide adds none, one look.
        return fixed(dependence: dependence, rate_share: share) unless max && max >= FIRST && first < max

        sequential(first: first, max: max, spending: spending, boundary: boundary, dependence: dependence, rate_share: share)
      end

      # A stored or given rate_share; 1.0 when absent or out of (0, 1].
      def self.rate_share_of(value)
        share = Float(value.to_s, exception: false)
        share && share.positive? && share <= 1 ? share : 1.0
      end

      def initialize(first:, max:, spending: :pocock, boundary: :union, dependence: true, rate_share: 1.0)
        @first = first
        @max = max
        @spending = spending
        @boundary = boundary
        @dependence = dependence
        @rate_share = rate_share.to_f
      end

      def sequential? = !@max.nil?
      def exact? = sequential? && @boundary == :exact
      def dependence? = @dependence

      # The share (0..1) of the rate spent by a look after n rounds; 0 where
      # no look is taken (before the first, past max).
      def share(n)
        return @rate_share unless sequential?
        return 0.0 if n < @first || n > @max
        return @rate_share * spend(n.to_f / @max) if n == @first

        @rate_share * (spend(n.to_f / @max) - spend((n - 1).to_f / @max))
      end

      # The looks this design takes, in order (a fixed design: [n]).
      def looks_until(n)
        sequential? ? (@first..[n, @max].min).to_a : [n]
      end

      # The share of the rate spent by t (0..1), by the design's function.
      def spend(t)
        t = t.clamp(0.0, 1.0)
        return Math.log(1 + (Math::E - 1) * t) if @spending == :pocock
        return 0.0 if t.zero?

        # 2 - 2 Phi(z / sqrt(t)) = erfc(z / sqrt(2 t)), over the rate 0.05.
        Math.erfc(Z_975 / Math.sqrt(2 * t)) / 0.05
      end

      def to_h
        shared = @rate_share < 1 ? { "rate_share" => @rate_share } : {}
        return { "design" => "fixed", "looks" => 1 }.merge(shared) unless sequential?

        { "design" => "alpha spending", "spending" => words, "first_look" => @first, "max_rounds" => @max }.merge(shared)
      end

      WORDS = {
        pocock: "Lan & DeMets's Pocock-type alpha spending, ln(1 + (e - 1) n/N)",
        obrien_fleming: "Lan & DeMets's O'Brien-Fleming-type alpha spending, 2 - 2 Phi(1.96 / sqrt(n/N))"
      }.freeze

      def words
        how = if exact? && @max - @first < Boundary::MAX_LOOKS
                "each look's intervals at the level of the exact group-sequential boundary (numerical integration)"
              else
                "each look's intervals at its share of the rate (the union bound over looks)"
              end
        "#{WORDS.fetch(@spending)}, #{how}"
      end

      def describe
        part = @rate_share < 1 ? format(", %.4g of the rate (a step of rackbench bisect)", @rate_share) : ""
        return "one look at the rounds measured#{part}" unless sequential?

        "a look after every round from #{@first} to #{@max}: #{words}#{part}"
      end
    end
  end
end
