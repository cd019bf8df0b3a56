# frozen_string_literal: true

require_relative "cells"
require_relative "metrics"
require_relative "welch"

module Rackbench
  module Stats
    # Compares two runs cell by cell (endpoint x setup x concurrency). For each
    # cell in both runs and each compared metric, the change of the mean of the
    # repetitions from run A to run B and Welch's t-test on them (two-sided,
    # alpha = 0.05; see Welch). A change is only called a difference when the
    # test supports it; otherwise it is "same within noise", and with fewer than
    # 2 repetitions on either side it cannot be tested at all.
    #
    # pairs maps a setup label of run B to the label of run A it stands for
    # (`compare --pair`): its cells meet A's under A's label, and each row
    # keeps both labels (setup, setup_b) so a report can show what met what.
    class Compare
      METRICS = %w[rps latency_ms.p99 memory.pss_total_mb].freeze

      # verdict: :higher / :lower (significant), :same (not significant), :untestable (n < 2),
      # :no_variance (no spread in either run: Welch cannot test)
      Change = Struct.new(:metric, :a, :b, :change_pct, :test, :verdict, keyword_init: true) do
        def significant?
          %i[higher lower].include?(verdict)
        end

        # "better"/"worse" in the metric's own sense (req/s higher is better).
        def better?
          significant? && verdict == metric.better
        end
      end

      # setup: run A's label; setup_b: run B's (the same unless paired).
      Row = Struct.new(:endpoint, :setup, :setup_b, :concurrency, :changes, keyword_init: true) do
        # "puma x2:5", or "puma x2:5 → puma x2:5 on yjit" for a paired row.
        def label
          setup == setup_b ? setup : "#{setup} → #{setup_b}"
        end
      end

      # only_a, only_b: each run's cells that met none of the other's, under
      # their own run's labels.
      attr_reader :rows, :only_a, :only_b

      def initialize(trials_a, trials_b, pairs: {}, alpha: Welch::ALPHA)
        @alpha = alpha
        @pairs = pairs
        cells_a = Cells.new(trials_a).cells
        cells_b = Cells.new(trials_b).cells
        index_b = cells_b.to_h { |c| [key(c, @pairs), c] }
        keys_a = cells_a.to_h { |c| [key(c), true] }
        @rows = cells_a.filter_map { |c| (other = index_b[key(c)]) && row(c, other) }
        @only_a = cells_a.reject { |c| index_b.key?(key(c)) }
        @only_b = cells_b.reject { |c| keys_a.key?(key(c, @pairs)) }
      end

      # Cells whose req/s is significantly lower in B by more than percent.
      def slower_than(percent)
        @rows.select do |r|
          rps = r.changes.find { |ch| ch.metric.key == "rps" }
          rps&.verdict == :lower && rps.change_pct < -percent.to_f
        end
      end

      private

      def key(cell, pairs = {})
        [cell.endpoint, pairs.fetch(cell.setup, cell.setup), cell.concurrency]
      end

      def row(cell_a, cell_b)
        changes = METRICS.filter_map { |k| change(Metrics[k], cell_a.trials, cell_b.trials) }
        Row.new(endpoint: cell_a.endpoint, setup: cell_a.setup, setup_b: cell_b.setup, concurrency: cell_a.concurrency,
                changes: changes)
      end

      # nil when either run has no value for the metric (e.g. memory not sampled).
      def change(metric, trials_a, trials_b)
        xs = metric.values(trials_a)
        ys = metric.values(trials_b)
        return nil if xs.empty? || ys.empty?

        a = Summary.of(xs)
        b = Summary.of(ys)
        pct = a.mean.zero? ? nil : (b.mean - a.mean) / a.mean * 100
        test = Welch.test(xs, ys, alpha: @alpha)
        Change.new(metric: metric, a: a, b: b, change_pct: pct, test: test, verdict: verdict(test, a, b))
      end

      def verdict(test, a, b)
        return :untestable if test.nil?
        return :no_variance if test.no_variance?
        return :same unless test.significant?

        b.mean > a.mean ? :higher : :lower
      end
    end
  end
end
