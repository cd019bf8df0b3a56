# frozen_string_literal: true

require_relative "../dataset"
require_relative "../quiet_notes"
require_relative "../validity_notes"

module Rackbench
  module Report
    class Html
      # The charts of the page as plain data for report.js: per endpoint req/s
      # and latency (mean, p99) against concurrency, one series per setup; at
      # the highest common concurrency, req/s as setups x endpoints bars both
      # ways round; memory and CPU when the trials carry them. Each point is the
      # median of a cell's repetitions with its 95% t-interval (lo, hi) when
      # there are 2 or more.
      #
      # Charts cover the first ENDPOINTS endpoints (in the run's order): the
      # per-endpoint charts, the bars and the CPU chart. A run with more (a
      # huge one: 100,000 cells) keeps its tables for every cell, and the
      # page says so (limit_note); each chart is a canvas, and a browser
      # draws hundreds, not tens of thousands.
      class ChartData
        ENDPOINTS = 200
        SETUP_COLORS = %w[#0072B2 #E69F00 #009E73 #CC79A7 #56B4E9 #D55E00 #7F7F7F #332288].freeze # Okabe-Ito
        ENDPOINT_COLORS = %w[#332288 #44AA99 #DDCC77 #CC6677 #88CCEE #117733 #AA4499 #882255].freeze # Paul Tol
        LOG_SPREAD = 30 # a value axis spanning more than this factor is drawn on a log scale

        def initialize(dataset)
          @data = dataset
        end

        def charts
          charted.each_with_index.flat_map { |e, i| endpoint_charts(e, i) } + level_charts +
            [memory_chart, cpu_chart].compact
        end

        # The endpoints charted: the first ENDPOINTS.
        def charted = @data.endpoints.first(ENDPOINTS)

        def charted?(index) = index < ENDPOINTS

        # What the page says when it charts only some endpoints (nil: all).
        def limit_note
          count = @data.endpoints.size
          return nil if count <= ENDPOINTS

          "Charts show the first #{ENDPOINTS} of this run's #{count} endpoints (a page draws a few hundred charts, " \
            "not #{count}); the tables show every cell, and rackbench report --format json or csv has every figure."
        end

        def setup_color(setup)
          ChartData.color_for(setup, @data.setups)
        end

        # A setup's colour follows its label, not the run's random setup
        # order: its place among the labels sorted, so the same setups have
        # the same colours in every report of them (puma was blue in one
        # report and orange in the next).
        def self.color_for(setup, setups)
          SETUP_COLORS[setups.sort.index(setup).to_i % SETUP_COLORS.size]
        end

        def self.chart_id(kind, index = nil)
          index.nil? ? kind : "#{kind}-#{index}"
        end

        private

        def endpoint_charts(endpoint, index)
          levels = @data.cells.levels(endpoint)
          setups = @data.cells.setups(endpoint)
          rps = setups.map { |s| series(s, setup_color(s), levels.map { |c| point(endpoint, s, c, "rps") }) }
          lat = setups.flat_map do |s|
            [series("#{s} mean", setup_color(s), levels.map { |c| point(endpoint, s, c, "latency_ms.mean") }),
             series("#{s} p99", setup_color(s), levels.map { |c| point(endpoint, s, c, "latency_ms.p99") }, dash: true)]
          end
          [chart(ChartData.chart_id("rps", index), "line", levels.map { |c| @data.cells.level_label(c) }, rps, "req/s", log: false),
           chart(ChartData.chart_id("latency", index), "line", levels.map { |c| @data.cells.level_label(c) }, lat, "ms")]
        end

        def level_charts
          level = @data.common_level or return []
          endpoints = charted
          setups = @data.setups
          by_endpoint = setups.map { |s| series(s, setup_color(s), endpoints.map { |e| point(e, s, level, "rps") }) }
          by_setup = endpoints.each_with_index.map do |e, i|
            series(e, ENDPOINT_COLORS[i % ENDPOINT_COLORS.size], setups.map { |s| point(e, s, level, "rps") })
          end
          [chart("bars-by-endpoint", "bar", endpoints, by_endpoint, "req/s"),
           chart("bars-by-setup", "bar", setups, by_setup, "req/s")]
        end

        # Per setup, over all its trials: the median and the range (min-max).
        def memory_chart
          return nil unless @data.memory?

          setups = @data.setups
          sets = [["PSS footprint", "memory.pss_total_mb", "#0072B2"], ["PSS per worker", "memory.pss_per_worker_mb", "#56B4E9"]]
          # Each setup's trials' memory, read in one pass (not the trials: a
          # stored run's are packed, Dataset).
          memory = Hash.new { |by_setup, s| by_setup[s] = [] }
          @data.trials.each { |t| memory[t["setup"]] << { "memory" => t["memory"] } }
          datasets = sets.map do |label, key, color|
            series(label, color, setups.map { |s| range_point(memory.fetch(s, []), key) })
          end
          chart("memory", "bar", setups, datasets.reject { |d| d[:points].all?(&:nil?) }, "MiB", log: false)
        end

        # At the common level, per setup and endpoint: server and load-generator CPU, stacked.
        def cpu_chart
          return nil unless @data.cpu?

          level = @data.common_level
          pairs = @data.setups.product(charted).select { |s, e| @data.cells[e, s, level] }
          labels = pairs.map { |s, e| "#{s} · #{e}" }
          datasets = [["server", "cpu.server_pct", "#D55E00"], ["load generator", "cpu.client_pct", "#7F7F7F"]].map do |label, key, color|
            series(label, color, pairs.map { |s, e| point(e, s, level, key) })
          end
          chart("cpu", "bar", labels, datasets, "% of one core", log: false, stacked: true, horizontal: true)
        end

        public

        def chart(id, type, labels, datasets, unit, log: nil, stacked: false, horizontal: false)
          values = datasets.flat_map { |d| d[:points].compact.map { |p| p[:y] } }.select(&:positive?)
          log = values.any? && values.max / values.min > LOG_SPREAD if log.nil?
          # A log axis starts at the decade below the smallest value, so every
          # bar shows (strictly below: a bar of exactly 1 req/s on an axis
          # starting at 1 had no height).
          log_min = log ? 10.0**(Math.log10(values.min) - 1e-9).floor : nil
          { id: id, type: type, labels: labels, datasets: datasets, unit: unit, log: log, log_min: log_min,
            stacked: stacked, horizontal: horizontal }
        end

        private

        def series(label, color, points, dash: false)
          { label: label, color: color, dash: dash, points: points }
        end

        # A cell that is not valid carries its note (report.js draws it hollow
        # or faint, and says why on hover); one under foreign load, foreign.
        def point(endpoint, setup, level, key)
          figure = @data.figure(endpoint, setup, level, key) or return nil
          s = figure[:summary]
          ivl = figure[:interval]
          cell = @data.cells[endpoint, setup, level]
          check = ValidityNotes.check(cell)
          point = { y: num(s.median), n: s.n, mean: num(s.mean), lo: ivl && num(ivl.low), hi: ivl && num(ivl.high),
                    kind: ivl && "95% CI", errors: figure[:errors] }
          point[:invalid] = check.note unless check.valid?
          point[:foreign] = true if QuietNotes.foreign_cell?(cell)
          point
        end

        def range_point(trials, key)
          s = Stats::Metrics[key].summary(trials)
          return nil if s.n.zero?

          { y: num(s.median), n: s.n, mean: num(s.mean), lo: num(s.min), hi: num(s.max), kind: "range", errors: 0 }
        end

        def num(value)
          value&.finite? ? value.round(4) : nil
        end
      end
    end
  end
end
