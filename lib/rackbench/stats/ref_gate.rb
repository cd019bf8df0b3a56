# frozen_string_literal: true

require_relative "cells"
require_relative "decision"
require_relative "decisions"
require_relative "error_budget"
require_relative "gate"

module Rackbench
  module Stats
    # run --ref BASE --ref HEAD ... --fail-if-slower P: did a change make the
    # app slower? For each setup, endpoint and level, each later ref's req/s
    # against the first ref's (the base), paired by round, decided at the
    # margin P (Stats::Decision), the gate's comparisons one family held to
    # 5% over every one of them, over the run's looks (--decide: Looks). Each
    # cell is then passed, slower, undecided or missing by Stats::Gate's
    # rule: a HEAD with no cell where BASE has one (it failed to boot, or its
    # requests failed) is missing, and the gate fails closed.
    class RefGate < Gate
      # groups: [[base setup's label, [label per ref, base first]]] (Plan#ref_groups).
      def initialize(trials, groups, margin:, looks: Looks.fixed)
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
        missing, met = decide(pairs, margin, looks, Decisions.rounds_of(trials)).partition { |_, b| b.nil? }
        super(margin, cells: met.map(&:first), missing: missing.map(&:first))
      end

      private

      # [[Gate::Cell, cell of HEAD or nil]] per pair.
      def decide(pairs, margin, looks, look)
        budget = ErrorBudget.new(looks: looks, family: pairs.size)
        pairs.map do |a, b, head|
          found = Gate::Cell.new(a: a.setup, b: head, endpoint: a.endpoint, level: a.level, loop: a.loop)
          next [found, nil] if b.nil?

          xs, ys = Decision.align(values(a), values(b))
          found.entry = (d = Decision.of(xs, ys, paired: true, margin: margin, budget: budget, look: look)) &&
                        Decisions::Entry.new(endpoint: a.endpoint, level: a.level, loop: a.loop, a: a.setup, b: head,
                                             metric: "rps", decision: d)
          [found, b]
        end
      end

      # {round => req/s} of a cell, a 0 req/s round as a result (Decisions.value).
      def values(cell)
        metric = Metrics["rps"]
        cell.trials.each_with_object({}) { |t, out| (v = Decisions.value(t, metric)) && out[t["repetition"] || 1] = v }
      end
    end
  end
end
