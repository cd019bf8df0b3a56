# frozen_string_literal: true

require_relative "../suites"
require_relative "../stats/cells"
require_relative "../stats/summary"
require_relative "../stats/welch"
require_relative "../report/number_format"

module Rackbench
  module Suites
    # A finished suite's conclusions, with numbers, computed from the run
    # directory's stored trials only. Figures are medians of the repetitions
    # of a cell; with repetitions a difference is called only when Welch's
    # t-test supports it (Stats::Welch, two-sided, alpha = 0.05). Without
    # them a line says "single run: no significance test", and two medians
    # within LEVEL of each other are called level, not ranked.
    module Findings
      LEVEL = 0.05 # single runs: medians closer than 5% are "level"
      FAR = 2.0    # "far ahead": at least twice the other's req/s

      module_function

      # Prints the findings of the suite recorded in the run's meta.json
      # (nothing when the run was not a suite).
      def report(store, io:)
        name = store.meta["suite"]
        return if name.nil?

        suite = Suites.fetch(name)
        io.puts
        io.puts "Findings of suite #{name} (seed #{suite::SEED}: #{suite::TITLE}), from the stored trials " \
                "(req/s: successful responses, median of the repetitions):"
        lines_for(name, store.trials).each { |line| io.puts "  - #{line}" }
      end

      def lines_for(name, trials)
        view = View.new(trials)
        return ["no trials were stored: nothing to conclude (see the failures above)"] if view.empty?

        Suites.fetch(name).findings(view)
      end

      def rps(value)
        Report::NumberFormat.rps(value)
      end

      def ms(value)
        Report::NumberFormat.ms(value)
      end

      # Two setups' req/s in one cell (endpoint x level): a ahead, b ahead or level.
      Comparison = Struct.new(:a, :b, :a_values, :b_values, keyword_init: true) do
        def a_rps
          Stats::Summary.of(a_values).median
        end

        def b_rps
          Stats::Summary.of(b_values).median
        end

        def ratio
          b_rps.to_f.positive? ? a_rps / b_rps : Float::INFINITY
        end

        def test
          Stats::Welch.test(b_values, a_values)
        end

        # :a or :b (one is ahead), :level (medians within LEVEL and no test
        # says otherwise) or :unclear (apart, but the test calls it noise).
        def verdict
          t = test
          close = none? || (ratio - 1).abs < LEVEL
          return leader if t&.significant?
          return :level if close

          t ? :unclear : leader
        end

        # Neither setup answered a request successfully.
        def none?
          a_rps.to_f.zero? && b_rps.to_f.zero?
        end

        def called?
          %i[a b].include?(verdict)
        end

        def leader
          a_rps >= b_rps ? :a : :b
        end

        def far?
          called? && (ratio >= FAR || ratio <= 1 / FAR)
        end

        # How far a is from b: "41x" when at least twice, else "+6%".
        def change
          return "#{b} served none" if b_rps.to_f.zero? && a_rps.to_f.positive?

          r = ratio
          return "#{format(r >= 10 ? '%.0f' : '%.1f', r)}x" if r >= FAR
          return "#{format((1 / r) >= 10 ? '%.0f' : '%.1f', 1 / r)}x less" if r.positive? && r <= 1 / FAR

          format("%+.0f%%", (r - 1) * 100)
        end

        def note
          t = test
          if t.nil?
            return "single run: no significance test" if a_values.size < 2 && b_values.size < 2

            return "fewer than 2 repetitions on one side: no significance test"
          end
          return Stats::Welch::NO_VARIANCE if t.no_variance?
          return format("same within noise, Welch p = %.2f", t.p) unless t.significant?

          t.p < 0.001 ? "Welch p < 0.001" : format("Welch p = %.3f", t.p)
        end
      end

      # Stored trials as cells (endpoint x setup x level), with the helpers
      # the suites' findings share.
      class View
        def initialize(trials)
          @trials = trials.select { |t| t["rps"] }
          @cells = Stats::Cells.new(@trials)
          @servers = @trials.to_h { |t| [t["setup"], t["server"]] }
        end

        def empty?
          @trials.empty?
        end

        def endpoints
          @cells.endpoints
        end

        def setups(endpoint = nil, server: nil)
          @cells.setups(endpoint).select { |s| server.nil? || @servers[s] == server }
        end

        def levels(endpoint)
          @cells.levels(endpoint)
        end

        def server_of(setup)
          @servers[setup]
        end

        def cell(endpoint, setup, level)
          @cells[endpoint, setup, level]
        end

        # The highest level every setup that ran on the endpoint reached.
        def top_level(endpoint)
          all = setups(endpoint)
          levels(endpoint).reverse.find { |c| all.all? { |s| cell(endpoint, s, c) } }
        end

        # Successful responses per second (goodput) by default: a server
        # answering errors fast must not lead.
        def values(endpoint, setup, level, &metric)
          metric ||= ->(t) { t["goodput_rps"] || t["rps"] }
          cell(endpoint, setup, level)&.trials&.map(&metric)&.compact || []
        end

        def median(endpoint, setup, level, &metric)
          Stats::Summary.of(values(endpoint, setup, level, &metric)).median
        end

        # Setups that ran on the endpoint at the level, highest median req/s first.
        def ranked(endpoint, level, server: nil)
          setups(endpoint, server: server).select { |s| cell(endpoint, s, level) }
                                          .sort_by { |s| -median(endpoint, s, level).to_f }
        end

        def best(endpoint, level, server: nil)
          ranked(endpoint, level, server: server).first
        end

        def compare(endpoint, level, a, b)
          Comparison.new(a: a, b: b, a_values: values(endpoint, a, level), b_values: values(endpoint, b, level))
        end

        # Median PSS footprint (MB) of the setup's trials in the cell; nil when not sampled.
        def footprint_mb(endpoint, setup, level)
          median(endpoint, setup, level) { |t| t.dig("memory", "pss_total_mb") }
        end

        def failures(endpoint, setup, level)
          cell(endpoint, setup, level)&.errors.to_i
        end

        # Failed requests by kind over the cell's trials (read errors that
        # were close-delimited artifacts left out).
        def failure_kinds(endpoint, setup, level)
          trials = cell(endpoint, setup, level)&.trials || []
          kinds = Hash.new(0)
          trials.each do |t|
            (t["errors"] || {}).each { |k, v| kinds[k] += v.to_i }
            kinds["read"] -= t.dig("error_artifacts", "read_close_delimited").to_i +
                             t.dig("error_artifacts", "read_after_error_response").to_i
          end
          kinds.select { |_, v| v.positive? }
        end

        # Every (endpoint, setup, level) with failed requests.
        def failed_cells
          @cells.cells.select { |c| c.errors.positive? }.map { |c| [c.endpoint, c.setup, c.concurrency] }
        end

        # Failed health checks in the cell's trials; nil when none were made.
        def health_failures(endpoint, setup, level)
          checks = (cell(endpoint, setup, level)&.trials || []).filter_map { |t| t["health"] }
          checks.empty? ? nil : checks.sum { |h| h["failures"].to_i }
        end
      end
    end
  end
end
