# frozen_string_literal: true

require_relative "cells"
require_relative "metrics"
require_relative "summary"
require_relative "decision"

module Rackbench
  module Stats
    # Every decision of one run (or one comparison of two runs): per cell
    # (endpoint x level), per pair of setups, per metric (req/s, p99, PSS
    # footprint), a Stats::Decision on the ratio B / A. A is the setup with
    # the higher median req/s in the cell, so "faster" and "slower" read from
    # the leader's side. The whole family is held to one false-decision rate
    # with Holm's step-down (Decision.holm), so many cells do not buy a false
    # call by chance (four tests at 5% would make one about 19% of the time).
    #
    # Within a run, values pair by round (the trial's "repetition": every
    # setup once per round, Plan#schedule) and the paired method is used.
    # Between two runs made at different times nothing pairs (the machine's
    # speed drifts between them): the unpaired method.
    class Decisions
      METRICS = %w[rps latency_ms.p99 memory.pss_total_mb].freeze
      HOLM = "Holm's step-down over all the decisions shown together (family-wise alpha 0.05)"

      # Words for B against A, per metric and outcome.
      WORDS = {
        "rps" => { higher: "faster", lower: "slower" },
        "latency_ms.p99" => { higher: "slower", lower: "faster" },
        "memory.pss_total_mb" => { higher: "larger", lower: "smaller" }
      }.freeze

      Entry = Struct.new(:endpoint, :level, :loop, :a, :b, :metric, :decision, keyword_init: true) do
        # faster | slower | equivalent | undecided (memory: larger | smaller).
        def outcome
          o = decision.outcome
          %i[higher lower].include?(o) ? WORDS.fetch(metric).fetch(o) : o.to_s
        end

        def decided?
          %i[higher lower].include?(decision.outcome)
        end

        def to_h
          { "endpoint" => endpoint, "level" => level, "loop" => loop, "a" => a, "b" => b, "metric" => metric }
            .merge(decision.to_h, "outcome" => outcome)
        end
      end

      attr_reader :entries, :margin

      # trials: one run's. margin: the equivalence margin (a share).
      def self.for_run(trials, margin: Decision::DEFAULT_MARGIN)
        new(margin: margin).tap { |d| d.add_run(Cells.new(trials)) }.held
      end

      # rows: Stats::Compare's rows (cells met in both runs, each with its
      # trials_a and trials_b); unpaired, A is RUN_A's cell. metrics: the
      # keys to decide (compare --fail-if-slower decides req/s alone).
      def self.for_comparison(rows, margin: Decision::DEFAULT_MARGIN, metrics: METRICS)
        new(margin: margin).tap { |d| d.add_rows(rows, metrics) }.held
      end

      def initialize(margin:)
        @margin = margin
        @entries = []
      end

      def add_run(cells)
        cells.endpoints.each do |endpoint|
          cells.levels(endpoint).each do |level|
            ranked = cells.setups(endpoint).filter_map { |s| cells[endpoint, s, level] }.sort_by { |c| -c.rps.median.to_f }
            rankings[[endpoint, level]] = ranked.map(&:setup)
            ranked.combination(2).each { |a, b| add_pair(a, b, level, paired: true) }
          end
        end
      end

      # {[endpoint, level] => setups, highest median req/s first}.
      def rankings
        @rankings ||= {}
      end

      # Each cell's neighbours in the ranking whose req/s is not decided
      # (undecided, or fewer than 2 rounds of both): [[endpoint, level, a, b, entry or nil]].
      # What run --decide measures more rounds for.
      def open_neighbours
        rankings.flat_map do |(endpoint, level), ranked|
          ranked.each_cons(2).filter_map do |a, b|
            entry = @entries.find { |e| e.endpoint == endpoint && e.level == level && e.a == a && e.b == b && e.metric == "rps" }
            [endpoint, level, a, b, entry] if entry.nil? || entry.decision.outcome == :undecided
          end
        end
      end

      def add_rows(rows, metrics = METRICS)
        rows.each do |row|
          metrics.each do |key|
            xs = Metrics[key].values(row.trials_a)
            ys = Metrics[key].values(row.trials_b)
            add(row.endpoint, row.level, row.loop, row.setup, row.setup_b, key, Decision.of(xs, ys, paired: false, margin: @margin))
          end
        end
      end

      # The entry of one row's metric (nil: it could not be decided).
      def for_row(row, metric)
        @entries.find do |e|
          e.endpoint == row.endpoint && e.level.eql?(row.level) && e.a == row.setup && e.b == row.setup_b && e.metric == metric
        end
      end

      # Holm over the whole family; returns self.
      def held
        Decision.holm(@entries.map(&:decision))
        self
      end

      # Entries of one cell, in the order added (leader's pairs first).
      def for_cell(endpoint, level)
        @entries.select { |e| e.endpoint == endpoint && e.level == level }
      end

      def any? = @entries.any?

      def to_a = @entries.map(&:to_h)

      private

      def add_pair(cell_a, cell_b, level, paired:)
        METRICS.each do |key|
          xs, ys = by_round(cell_a.trials, cell_b.trials, Metrics[key])
          next if xs.size < 2

          add(cell_a.endpoint, level, cell_a.loop, cell_a.setup, cell_b.setup, key,
              Decision.of(xs, ys, paired: paired, margin: @margin))
        end
      end

      def add(endpoint, level, loop, a, b, metric, decision)
        return if decision.nil?

        @entries << Entry.new(endpoint: endpoint, level: level, loop: loop, a: a, b: b, metric: metric, decision: decision)
      end

      # The metric's values of the rounds both setups have, in round order.
      def by_round(trials_a, trials_b, metric)
        Decision.align(round_values(trials_a, metric), round_values(trials_b, metric))
      end

      def round_values(trials, metric)
        trials.each_with_object({}) do |t, out|
          v = metric.values([t]).first
          out[t["repetition"] || 1] = v if v
        end
      end
    end
  end
end
