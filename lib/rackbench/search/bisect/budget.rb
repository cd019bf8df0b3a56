# frozen_string_literal: true

require_relative "../../stats/error_budget"

module Rackbench
  module Search
    module Bisect
      # The error a bisection spends, fixed before its first step.
      #
      # A bisection over N commits decides bad against good once, then takes
      # at most ceil(log2 N) steps of a binary search, plus SPARE steps for
      # commits that cannot boot (each is stepped around: another commit is
      # decided in its place), plus OWN: the commit found decided against
      # its own parent (does it alone carry the slowdown, or is the
      # slowdown spread over several commits?). That is K decisions at most; each one is a
      # run --decide whose looks spend rate / K (Stats::Looks#rate_share),
      # so by the union bound (Bonferroni over the steps, each step's looks
      # by Lan & DeMets's spending within it) the chance that any of the K
      # intervals misses its true ratio is at most the rate, 5%.
      #
      # Under the assumptions that (a) each commit's ratio to good is what
      # its interval estimates (rounds independent, paired by round) and
      # (b) the path is monotone: every commit from the first bad one on is
      # slower than good by more than the margin, every one before it is
      # not; a wrong commit is named only if some decision is wrong, so
      # at most 5% of bisections name a wrong commit. A slowdown spread
      # over several commits breaks (b): the one found is then the first
      # whose sum crosses the margin, and the OWN decision (within the same
      # K) says it is not slower than its parent by more than the margin,
      # so it is not named alone (Outcome :spread).
      class Budget
        SPARE = 1
        OWN = 1

        attr_reader :decisions

        # commits: the path's size after good (N >= 1).
        def initialize(commits, spare: SPARE)
          @decisions = 1 + Math.log2([commits, 1].max).ceil + spare + OWN
        end

        # Each decision's share of the rate.
        def share = 1.0 / @decisions
        def rate = Stats::ErrorBudget::RATE
        def per_decision = rate * share

        def describe
          format("Bonferroni over %<k>d decisions (bad against good, ceil(log2 N) steps, %<spare>d spare for a commit " \
                 "that does not boot, %<own>d for the commit found against its parent): each at %<each>.4g%% of the 5%% " \
                 "rate of naming a wrong commit", k: @decisions, spare: SPARE, own: OWN, each: per_decision * 100)
        end
      end
    end
  end
end
