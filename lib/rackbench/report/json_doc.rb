# frozen_string_literal: true

require "json"
require_relative "dataset"
require_relative "streams"
require_relative "../version"
require_relative "../stats/verdict"
require_relative "../stats/validity"
require_relative "../stats/cell_split"
require_relative "boot_variance_note"
require_relative "boots_note"
require_relative "speedscope"

module Rackbench
  module Report
    # The machine-readable report, schema "rackbench.report/1" (documented in
    # docs/report-json.md). Additive changes keep the version; removing or
    # renaming a field bumps it to rackbench.report/2.
    #
    # Streamed (issue 35): #write puts out the document a part at a time,
    # each cell, decision and trial as it is made, the same bytes as
    # JSON.pretty_generate(document) + "\n", so a run of 100,000 cells is
    # never one document (nor one String of ~500 MB) in memory.
    class JsonDoc
      SCHEMA = "rackbench.report/1"

      include Streams # #render: #write's rendering as one String

      def initialize(dataset)
        @data = dataset
      end

      # The document into io, pretty-printed as JSON.pretty_generate does
      # (two spaces a level): the lists of cells, decisions and trials an
      # element at a time.
      def write(io)
        io.write("{")
        parts.each_with_index do |(key, value), i|
          io.write(i.zero? ? "\n  " : ",\n  ")
          io.write("#{JSON.generate(key)}: ")
          value.is_a?(Enumerator::Lazy) ? write_list(io, value) : io.write(pretty(value, 1))
        end
        io.write("\n}\n")
      end

      def document
        parts.to_h { |key, value| [key, value.is_a?(Enumerator::Lazy) ? value.to_a : value] }
      end

      # {"boot_variance" => [...]} for a run with several takes per boot (run --per-boot), else {}.
      # Only a run whose trials hold takes (take_rps) has any: the others'
      # cells are not decoded for it.
      def boot_variance
        return {} unless @data.trials.any? { |t| t.key?("take_rps") }

        found = Stats::BootVariance.of(@data.cells.cells, Stats::BootVariance.costs(@data.setup_rows, @data.meta["config"] || {}))
        found.empty? ? {} : { "boot_variance" => found.map(&:to_h) }
      end

      # {"races" => [...]} for a run that raced its setups (Stats::Race:
      # run --decide with three or more setups), else {}: one per cell.
      def races
        race = @data.decisions.race
        race ? { "races" => race.to_a } : {}
      end

      # {"attributions" => [...]} for a run --profile run with decided pairs
      # (Stats::Attribution: where each decided req/s difference went), else {}.
      def attributions
        found = @data.attributions.values
        found.empty? ? {} : { "attributions" => found.map(&:to_h) }
      end

      # {"profiles" => [...]} for a run --profile run with stacks stored:
      # where each setup's profile is in the speedscope file (Speedscope), else {}.
      def profiles
        found = Speedscope.new(@data.frame_stacks).index
        found.empty? ? {} : { "profiles" => found }
      end

      # A Summary (and its interval) as JSON; ci95 is null below 2 repetitions.
      def self.summary(summary, interval)
        {
          "n" => summary.n, "median" => summary.median, "mean" => summary.mean, "stdev" => summary.stdev,
          "min" => summary.min, "max" => summary.max, "cv" => summary.cv,
          "ci95" => interval&.to_h
        }
      end

      private

      # The document's keys in order, the long lists lazy (made as written).
      def parts
        {
          "schema" => SCHEMA,
          "generated_by" => "rackbench #{VERSION}",
          "run_dir" => @data.path,
          "meta" => @data.meta,
          "method" => method_section,
          "setups" => @data.setup_rows,
          "cells" => @data.cells.cells.lazy.map { |c| cell(c) },
          "decisions" => @data.decisions.entries.lazy.map(&:to_h),
          **races,
          **attributions,
          **profiles,
          "calibration" => @data.calibration,
          **boot_variance,
          "trials" => @data.trials.lazy.map(&:to_h) # each whole (a stored run's are packed: Dataset)
        }
      end

      # A list at the document's second level, each element indented by
      # four spaces (an empty one as the generator writes it).
      def write_list(io, items)
        empty = true
        items.each do |item|
          io.write(empty ? "[\n    " : ",\n    ")
          io.write(pretty(item, 2))
          empty = false
        end
        io.write(empty ? pretty([], 1) : "\n  ]")
      end

      # A value as JSON.pretty_generate writes it nested depth levels deep
      # (its lines after the first indented two spaces a level).
      def pretty(value, depth)
        state = (@states ||= {})[depth] ||= JSON::State.new(indent: "  ", space: " ", object_nl: "\n", array_nl: "\n")
        state.depth = depth
        state.generate(value)
      end

      def method_section
        min, max = @data.repetitions
        {
          "loops" => @data.loops,
          "repetitions" => { "min" => min, "max" => max },
          "point" => "median of the repetitions",
          "interval" => @data.ci_method,
          "comparison_test" => "rackbench compare: #{Stats::Decision::UNPAIRED}, the same rule, margin and families as decisions, one look",
          "decisions" => { "paired" => Stats::Decision::PAIRED, "margin" => @data.decisions.margin,
                           "families" => Stats::Decisions::FAMILIES, "family_sizes" => @data.decisions.family_sizes,
                           "looks" => @data.decisions.looks.to_h, "spread_floor" => Stats::Decision::SD_FLOOR,
                           "rule" => "each decision's interval (ci_low, ci_high) is 95% for its family over every look; " \
                                     "faster/slower: it lies beyond the margin; equivalent: inside it (two one-sided tests); " \
                                     "direction_*: beyond no change but across the margin; undecided: otherwise. " \
                                     "ci_low_unadjusted/ci_high_unadjusted: the plain 95% interval of the same data" },
          "boots" => BootsNote.to_h(@data.setup_rows, @data.trials),
          "latency_note" => "closed-loop latency is measured from each request's send and hides coordinated omission"
        }
      end

      # The cell's trials are decoded once here (Cell#trials) and read by
      # every figure; an interval is sought only where it can be (2 values
      # or more: Stats::Interval), a 100,000-cell run's cells of one
      # repetition each ask for none.
      def cell(cell)
        trials = cell.trials
        metrics = @data.metrics.each_with_object({}) do |metric, out|
          summary = metric.summary(trials)
          out[metric.key] = self.class.summary(summary, summary.n < 2 ? nil : metric.interval(trials)) unless summary.n.zero?
        end
        {
          "endpoint" => cell.endpoint, "setup" => cell.setup, "concurrency" => cell.level,
          "loop" => cell.loop, "repetitions" => trials.size, "requests" => cell.requests,
          "errors" => cell.errors, "metrics" => metrics,
          "verdict" => Stats::Verdict.for_cell(trials)&.to_h,
          "validity" => validity(trials),
          "split" => Stats::CellSplit.of(trials)
        }
      end

      # Stats::Validity: whether the cell's figures (its trials') can be trusted.
      def validity(trials)
        check = Stats::Validity.cell(trials)
        { "valid" => check.valid?, "invalid_trials" => check.invalid, "problems" => check.problems.map { |p| { "kind" => p.kind, "text" => p.text } },
          "needs_duration_s" => check.needs_s, "wrk_latency_correction" => check.artifacts.any? }
      end
    end
  end
end
