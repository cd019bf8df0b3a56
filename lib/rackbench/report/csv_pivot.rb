# frozen_string_literal: true

require_relative "dataset"
require_relative "csv_cell"

module Rackbench
  module Report
    # The two pivots of the seed study's organize script, as blocks of one CSV
    # file (a title row, a header row, data rows, a blank row), each figure the
    # median of a cell's repetitions:
    #   by: :endpoint     endpoint -> metric -> setups (rows) x concurrency (columns)
    #   by: :concurrency  concurrency -> metric -> endpoints (rows) x setups (columns)
    class CsvPivot
      PIVOTS = %w[endpoint concurrency].freeze

      def initialize(dataset, by:)
        @data = dataset
        @by = by.to_s
        raise ArgumentError, "pivot must be one of #{PIVOTS.join(', ')}" unless PIVOTS.include?(@by)
      end

      def render
        CsvCell.generate do |csv|
          @by == "endpoint" ? by_endpoint(csv) : by_concurrency(csv)
        end
      end

      private

      SHOWN = %w[rps goodput_rps latency_ms.mean latency_ms.p99 memory.pss_total_mb memory.pss_per_worker_mb
                 cpu.server_pct cpu.client_pct].freeze

      def metrics
        @data.metrics.select { |m| SHOWN.include?(m.key) }
      end

      def by_endpoint(csv)
        @data.endpoints.each do |endpoint|
          levels = @data.cells.levels(endpoint)
          metrics.each do |metric|
            rows = @data.cells.setups(endpoint).map do |setup|
              [setup] + levels.map { |c| median(endpoint, setup, c, metric) }
            end
            block(csv, [endpoint, title(metric)], ["setup \\ concurrency", *levels], rows)
          end
        end
      end

      def by_concurrency(csv)
        setups = @data.setups
        @data.levels.each do |level|
          metrics.each do |metric|
            rows = @data.endpoints.map do |endpoint|
              [endpoint] + setups.map { |setup| median(endpoint, setup, level, metric) }
            end
            block(csv, ["concurrency #{level}", title(metric)], ["endpoint \\ setup", *setups], rows)
          end
        end
      end

      def block(csv, title, header, rows)
        return if rows.all? { |r| r.drop(1).all?(&:nil?) }

        csv << title
        csv << header
        rows.each { |r| csv << r }
        csv << []
      end

      def title(metric)
        "#{[metric.label, metric.unit].uniq.reject(&:empty?).join(', ')} (median)"
      end

      def median(endpoint, setup, level, metric)
        figure = @data.figure(endpoint, setup, level, metric.key)
        figure && figure[:summary].median.round(3)
      end
    end
  end
end
