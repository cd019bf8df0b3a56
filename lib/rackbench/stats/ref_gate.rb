# frozen_string_literal: true

require_relative "cells"
require_relative "decision"
require_relative "decisions"
require_relative "error_budget"

module Rackbench
  module Stats
    # run --ref BASE --ref HEAD ... --fail-if-slower P: did a change make the
    # app slower? For each setup, endpoint and level, each later ref's req/s
    # against the first ref's (the base), paired by round, decided at the
    # margin P (Stats::Decision), the gate's comparisons one family held to
    # 5% over every one of them, over the run's looks (--decide: Looks):
    #
    #   slower     the interval of HEAD/BASE lies wholly below 1 - P;
    #   undecided  it reaches below 1 - P (no round decided it either way),
    #              or a cell has fewer than 2 rounds of both;
    #   missing    HEAD has no cell where BASE has one (it failed to boot, or
    #              its requests failed): the gate fails closed;
    #   passed     every interval lies above 1 - P (equivalent, or faster).
    class RefGate
      Found = Struct.new(:base, :head, :endpoint, :level, :loop, :entry, keyword_init: true)

      attr_reader :slower, :undecided, :missing, :passed

      # groups: [[base setup's label, [label per ref, base first]]] (Plan#ref_groups).
      def initialize(trials, groups, margin:, looks: Looks.fixed)
        @margin = margin
        cells = Cells.new(trials.select { |t| t["rps"] })
        pairs = groups.flat_map do |_, labels|
          base, *heads = labels
          heads.product(cells.endpoints).flat_map do |head, endpoint|
            cells.levels(endpoint).filter_map do |level|
              a = cells[endpoint, base, level] or next
              [a, cells[endpoint, head, level], head]
            end
          end
        end
        decide(pairs, looks, Decisions.rounds_of(trials))
      end

      def status
        return 1 if @slower.any? || @missing.any?
        return 3 if @undecided.any?

        0
      end

      private

      def decide(pairs, looks, look)
        budget = ErrorBudget.new(looks: looks, family: pairs.size)
        @slower = []
        @undecided = []
        @missing = []
        @passed = []
        pairs.each do |a, b, head|
          found = Found.new(base: a.setup, head: head, endpoint: a.endpoint, level: a.level, loop: a.loop)
          next @missing << found if b.nil?

          xs, ys = Decision.align(values(a), values(b))
          found.entry = (d = Decision.of(xs, ys, paired: true, margin: @margin, budget: budget, look: look)) &&
                        Decisions::Entry.new(endpoint: a.endpoint, level: a.level, loop: a.loop, a: a.setup, b: head,
                                             metric: "rps", decision: d)
          bucket(found) << found
        end
      end

      def bucket(found)
        d = found.entry&.decision
        return @undecided if d.nil?
        return @slower if d.outcome == :lower
        return @undecided if d.ci_low < 1 - @margin

        @passed
      end

      # {round => req/s} of a cell, a 0 req/s round as a result (Decisions.value).
      def values(cell)
        metric = Metrics["rps"]
        cell.trials.each_with_object({}) { |t, out| (v = Decisions.value(t, metric)) && out[t["repetition"] || 1] = v }
      end
    end
  end
end
