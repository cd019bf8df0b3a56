# frozen_string_literal: true

require_relative "../../stats/cells"
require_relative "../../stats/summary"
require_relative "../../stats/decision"
require_relative "../../stats/error_budget"
require_relative "../../stats/family"
require_relative "flipped"
require_relative "comparison"

module Rackbench
  module Suites
    module Findings
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

        # a against b in one cell (level_b: b's level when the cells differ,
        # e.g. each setup's peak). The decision is made once per pair of
        # cells, whichever way round it is asked, so the family held together
        # counts each pair once.
        def compare(endpoint, level, a, b, level_b: level)
          ka = [endpoint, a, level]
          kb = [endpoint, b, level_b]
          decision = if (d = decided[[ka, kb]]) then Flipped.new(d)
                     else decided[[kb, ka]] ||= decide(ka, kb)
                     end
          Comparison.new(a: a, b: b, a_values: values(endpoint, a, level), b_values: values(endpoint, b, level_b),
                         decision: decision)
        end

        # Every decision the comparisons asked for so far.
        def decisions
          decided.values.compact
        end

        # The comparisons met so far are the family: decide them again, each
        # at its share of the rate.
        def family!
          @budget = Stats::ErrorBudget.new(family: decisions.size)
          @decided = {}
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
          @cells.cells.select { |c| c.errors.positive? }.map { |c| [c.endpoint, c.setup, c.level] }
        end

        # Failed health checks in the cell's trials; nil when none were made.
        def health_failures(endpoint, setup, level)
          checks = (cell(endpoint, setup, level)&.trials || []).filter_map { |t| t["health"] }
          checks.empty? ? nil : checks.sum { |h| h["failures"].to_i }
        end

        private

        # {[base cell, other cell] => Stats::Decision of other's req/s against base's, or nil}.
        def decided
          @decided ||= {}
        end

        # Paired over the rounds both cells ran (2 or more), else unpaired.
        def decide(other, base)
          o = by_round(*other)
          b = by_round(*base)
          xs, ys = Stats::Family.paired(b, o)
          budget = @budget || Stats::ErrorBudget.plain
          if xs.size >= 2
            Stats::Decision.of(xs, ys, paired: true, margin: LEVEL, budget: budget)
          else
            Stats::Decision.of(b.values, o.values, paired: false, margin: LEVEL, budget: budget)
          end
        end

        # {round => goodput} of one cell (the trial's repetition is its round).
        def by_round(endpoint, setup, level)
          Stats::Family.round_values(cell(endpoint, setup, level)&.trials || []) { |t| t["goodput_rps"] || t["rps"] }
        end
      end
    end
  end
end
