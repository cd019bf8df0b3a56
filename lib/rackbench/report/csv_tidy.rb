# frozen_string_literal: true

require_relative "dataset"
require_relative "csv_cell"

module Rackbench
  module Report
    # CSV in tidy long form: one row per trial, one column per variable, ready
    # for a spreadsheet pivot table, pandas or R. Memory and CPU columns
    # ("memory.<key>", "cpu.<key>") appear when any trial carries them.
    class CsvTidy
      BASE = %w[setup server workers threads endpoint concurrency repetition loop engine started_at
                duration_s requests bytes rps goodput_rps].freeze
      LATENCY = %w[min mean stdev p50 p75 p90 p99 p99.9 max].freeze
      ERRORS = %w[connect read write timeout status].freeze

      def initialize(dataset)
        @data = dataset
      end

      def render
        sampled = sampled_columns
        header = BASE + LATENCY.map { |k| "latency_ms.#{k}" } + ERRORS.map { |k| "errors.#{k}" } +
                 ["error_total"] + sampled
        CsvCell.generate do |csv|
          csv << header
          @data.trials.each { |t| csv << row(t.to_h, sampled) } # a Hash (a stored run's trials are packed: Dataset)
        end
      end

      private

      def row(trial, sampled)
        BASE.map { |k| trial[k] } +
          LATENCY.map { |k| Stats::Metrics.dig(trial, ["latency_ms", k]) } +
          ERRORS.map { |k| Stats::Metrics.dig(trial, ["errors", k]) } +
          [trial["error_total"]] +
          sampled.map { |col| Stats::Metrics.dig(trial, col.split(".", 2)) }
      end

      def sampled_columns
        @data.metrics.map(&:key).select { |k| k.start_with?("memory.", "cpu.") }
      end
    end
  end
end
