# frozen_string_literal: true

require_relative "cells"
require_relative "metrics"
require_relative "decisions"
require_relative "gate"

module Rackbench
  module Stats
    # Compares two runs cell by cell (endpoint x setup x concurrency). Two
    # runs made at different times cannot be paired (the machine's speed
    # moves between them, by up to 35% within minutes on a quiet machine), so
    # for each cell in both runs and each compared metric (req/s, p99, PSS)
    # the repetitions of A and of B are decided unpaired: Stats::Decision's
    # Welch's t on the log values, the ratio B / A with its 95% interval,
    # faster/slower beyond the margin, equivalent inside it, undecided
    # otherwise. req/s is one family, p99 and PSS another, each held to 5%
    # over every decision in it (Stats::Decisions). A cell with fewer than 2
    # repetitions on a side cannot be decided at all; a repetition that
    # served nothing (0 req/s) counts as one.
    #
    # pairs maps a setup label of run B to the label of run A it stands for
    # (`compare --pair`): its cells meet A's under A's label, and each row
    # keeps both labels (setup, setup_b) so a report can show what met what.
    class Compare
      METRICS = Decisions::METRICS

      # a, b: Summaries of the metric's values in each run; entry: its
      # Decisions::Entry, nil when it could not be decided.
      Change = Struct.new(:metric, :a, :b, :entry, keyword_init: true) do
        def decision = entry&.decision

        # Fewer than 2 repetitions with a value in either run.
        def too_few?
          a.n < 2 || b.n < 2
        end

        # faster | slower | equivalent | undecided (memory: larger | smaller),
        # or "cannot decide".
        def outcome
          entry ? entry.outcome : "cannot decide"
        end

        # B against A in percent: from the decision's ratio (of the geometric
        # means) when there is one, else from the means.
        def change_pct
          return decision.change_pct if decision

          a.mean.zero? ? nil : (b.mean - a.mean) / a.mean * 100
        end
      end

      # setup: run A's label; setup_b: run B's (the same unless paired).
      Row = Struct.new(:endpoint, :setup, :setup_b, :level, :loop, :trials_a, :trials_b, :changes, keyword_init: true) do
        # "puma x2:5", or "puma x2:5 → puma x2:5 on yjit" for a paired row.
        def label
          setup == setup_b ? setup : "#{setup} → #{setup_b}"
        end

        def change(key)
          changes.find { |ch| ch.metric.key == key }
        end
      end

      # only_a, only_b: each run's cells that met none of the other's, under
      # their own run's labels. decisions: the family (Stats::Decisions).
      attr_reader :rows, :only_a, :only_b, :decisions, :margin

      def initialize(trials_a, trials_b, pairs: {}, margin: Decision::DEFAULT_MARGIN)
        @pairs = pairs
        @margin = margin
        cells_a = Cells.new(trials_a).cells
        cells_b = Cells.new(trials_b).cells
        index_b = cells_b.to_h { |c| [key(c, @pairs), c] }
        keys_a = cells_a.to_h { |c| [key(c), true] }
        @rows = cells_a.filter_map { |c| (other = index_b[key(c)]) && row(c, other) }
        @only_a = cells_a.reject { |c| index_b.key?(key(c)) }
        @only_b = cells_b.reject { |c| keys_a.key?(key(c, @pairs)) }
        @decisions = Decisions.for_comparison(@rows, margin: margin)
        @rows.each { |r| r.changes.each { |ch| ch.entry = @decisions.for_row(r, ch.metric.key) } }
      end

      # The gate of `compare --fail-if-slower` (Stats::Gate): req/s alone,
      # decided at the gate's own margin (a share), one family
      # (Stats::Decisions); RUN_A's cells that RUN_B lacks are missing.
      def gate(margin)
        family = Decisions.for_comparison(@rows, margin: margin, metrics: %w[rps])
        cells = @rows.select { |row| row.change("rps") }.map do |row|
          Gate::Cell.new(endpoint: row.endpoint, level: row.level, loop: row.loop, a: row.setup, b: row.setup_b,
                         entry: family.for_row(row, "rps"))
        end
        missing = @only_a.map { |c| Gate::Cell.new(endpoint: c.endpoint, level: c.level, loop: c.loop, a: c.setup) }
        Gate.new(margin, cells: cells, missing: missing)
      end

      private

      def key(cell, pairs = {})
        [cell.endpoint, pairs.fetch(cell.setup, cell.setup), cell.level]
      end

      def row(cell_a, cell_b)
        changes = METRICS.filter_map { |k| change(Metrics[k], cell_a.trials, cell_b.trials) }
        Row.new(endpoint: cell_a.endpoint, setup: cell_a.setup, setup_b: cell_b.setup, level: cell_a.level,
                loop: cell_a.loop, trials_a: cell_a.trials, trials_b: cell_b.trials, changes: changes)
      end

      # nil when either run has no value for the metric (e.g. memory not sampled).
      def change(metric, trials_a, trials_b)
        xs = metric.values(trials_a)
        ys = metric.values(trials_b)
        return nil if xs.empty? || ys.empty?

        Change.new(metric: metric, a: Summary.of(xs), b: Summary.of(ys))
      end
    end
  end
end
