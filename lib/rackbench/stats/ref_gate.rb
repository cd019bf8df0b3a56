# frozen_string_literal: true

require_relative "cells"
require_relative "decision"
require_relative "decisions"
require_relative "family"
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

      # One pair's rounds and the Gate::Cell its decision goes to.
      Candidate = Struct.new(:xs, :ys, :paired, :found, keyword_init: true)

      # [[Gate::Cell, cell of HEAD or nil]] per pair; the family (Stats::Family)
      # counts every pair, a HEAD missing too.
      def decide(pairs, margin, looks, look)
        out = pairs.map do |a, b, head|
          [Gate::Cell.new(a: a.setup, b: head, endpoint: a.endpoint, level: a.level, loop: a.loop), b]
        end
        candidates = pairs.zip(out).filter_map do |(a, b, _), (found, _)|
          b && Candidate.new(found: found, paired: true, xs: nil, ys: nil).tap do |c|
            c.xs, c.ys = Family.paired(Decisions.round_values(a.trials, "rps"), Decisions.round_values(b.trials, "rps"))
          end
        end
        Family.decide(candidates, margin: margin, looks: looks, look: look, size: { all: pairs.size }) do |c, d|
          f = c.found
          c.found.entry = d && Decisions::Entry.new(endpoint: f.endpoint, level: f.level, loop: f.loop, a: f.a, b: f.b,
                                                    metric: "rps", decision: d)
        end
        out
      end
    end
  end
end
