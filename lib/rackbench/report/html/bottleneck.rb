# frozen_string_literal: true

require_relative "escape"
require_relative "cell_table"
require_relative "chart_data"
require_relative "../validity_notes"
require_relative "../../stats/verdict"

module Rackbench
  module Report
    class Html
      # Per endpoint, why each setup won or lost: the verdict of every cell
      # (Stats::Verdict, with its reason and a Little's-law warning), the
      # requests waiting against the concurrency (the mean over each trial of
      # the accept queue plus the server's own backlog; median of the
      # repetitions, whiskers: their range) and, at the endpoint's highest
      # level, each worker's share of the requests (per-worker balance; one
      # bar per setup, one segment per worker, busiest first).
      class Bottleneck
        include Escape
        include CellTable

        WORKER_COLORS = %w[#0072B2 #E69F00 #009E73 #CC79A7 #56B4E9 #D55E00 #7F7F7F #332288].freeze

        # chart: a callable (id, type, labels, datasets, unit, **opts) -> chart spec (ChartData's shape).
        def initialize(dataset, chart:, color:)
          @data = dataset
          @chart = chart
          @color = color
        end

        def self.queue_id(index) = "queue-#{index}"
        def self.balance_id(index) = "balance-#{index}"

        def charts
          @data.endpoints.first(ChartData::ENDPOINTS).each_with_index.flat_map { |e, i| [queue_chart(e, i), balance_chart(e, i)].compact }
        end

        # The section's part: the verdict table, then the two charts. figure: (id, caption) -> HTML.
        def content(endpoint, index, figure)
          figures = []
          if queue_chart(endpoint, index) # a run stored without queue samples has no such chart
            figures << figure.call(self.class.queue_id(index), "Requests waiting (accept queue + server backlog) vs concurrency")
          end
          level = top_level(endpoint)
          if balance_chart(endpoint, index)
            figures << figure.call(self.class.balance_id(index),
                                   "Per-worker balance at #{@data.cells.level_label(level)}: share of requests served")
          end
          "<h3>What limited each cell</h3>#{verdict_table(endpoint)}<div class=\"grid\">#{figures.join}</div>"
        end

        def verdict_table(endpoint)
          cell_table(endpoint, "verdicts", td_class: "verdict") { |cell| verdict_cell(cell) }
        end

        private

        def verdict_cell(cell)
          return "<span class=\"none\">–</span>" unless cell

          v = Stats::Verdict.for_cell(cell.trials)
          "<b class=\"kind-#{h(v.kind)}\">#{h(v.label)}</b><br><span class=\"why\">#{h(v.reason)}</span>#{trust(cell, v)}"
        end

        # Little's law and validity under the reason: wrk's latency
        # correction as a muted note (an artifact), a cell not valid in red.
        def trust(cell, verdict)
          check = ValidityNotes.check(cell)
          return "<br><span class=\"bad\">#{h(check.note)}</span>" unless check.valid?

          little = verdict.little
          return "" unless little&.holds == false
          return "<br><span class=\"artifact\">Note: #{h(little.note)}</span>" if check.artifacts.any? { |a| a.ratio == little.ratio }

          "<br><span class=\"bad\">#{h(little.note)}</span>"
        end

        def queue_chart(endpoint, index)
          levels = @data.cells.levels(endpoint)
          datasets = @data.cells.setups(endpoint).map do |setup|
            points = levels.map { |c| range_point(@data.cells[endpoint, setup, c]&.trials, "waiting_mean") }
            { label: setup, color: @color.call(setup), dash: false, points: points }
          end
          return nil if datasets.all? { |d| d[:points].all?(&:nil?) }

          @chart.call(self.class.queue_id(index), "line", levels.map { |c| @data.cells.level_label(c) }, datasets,
                      "requests waiting", log: false)
        end

        def balance_chart(endpoint, index)
          level = top_level(endpoint) or return nil
          setups = @data.cells.setups(endpoint)
          shares = setups.map { |s| worker_shares(@data.cells[endpoint, s, level]) }
          width = shares.map(&:size).max.to_i
          return nil if width < 1

          datasets = Array.new(width) do |w|
            points = shares.map { |list| list[w] && { y: (list[w] * 100).round(1), n: 1, errors: 0 } }
            { label: "worker #{w + 1}#{w.zero? ? ' (busiest)' : ''}", color: WORKER_COLORS[w % WORKER_COLORS.size], dash: false, points: points }
          end
          @chart.call(self.class.balance_id(index), "bar", setups, datasets, "% of requests", log: false, stacked: true,
                                                                                           horizontal: true)
        end

        # Each worker's share of the requests in the cell's first trial with a balance, busiest first.
        def worker_shares(cell)
          return [] unless cell

          trial = cell.trials.find { |t| t.dig("balance", "workers").is_a?(Array) } or return []
          trial.dig("balance", "workers").filter_map { |w| w["requests_share"] }.sort.reverse
        end

        def top_level(endpoint)
          @data.cells.levels(endpoint).reject { |l| @data.cells.open_level?(l) }.max || @data.cells.levels(endpoint).last
        end

        def range_point(trials, key)
          values = Array(trials).filter_map { |t| t.dig("queues", key) }
          return nil if values.empty?

          sorted = values.sort
          median = sorted.size.odd? ? sorted[sorted.size / 2] : (sorted[sorted.size / 2 - 1] + sorted[sorted.size / 2]) / 2.0
          { y: median.round(2), n: values.size, mean: (values.sum / values.size).round(2), lo: sorted.first, hi: sorted.last,
            kind: "range", errors: 0 }
        end
      end
    end
  end
end
