# frozen_string_literal: true

require_relative "cells"
require_relative "metrics"
require_relative "summary"
require_relative "decision"
require_relative "error_budget"
require_relative "family"
require_relative "validity"

module Rackbench
  module Stats
    # Every decision of one run (or one comparison of two runs): per cell
    # (endpoint x level), per pair of neighbours in the cell's req/s ranking
    # (the setups ranked by median req/s, valid cells only: Stats::Validity),
    # per metric (req/s, p99, PSS footprint), a Stats::Decision on the ratio
    # B / A, A the higher-ranked, so "faster" and "slower" read from the
    # leader's side. A cell that is not valid is never ranked, so never
    # decided: the answer names it as left out.
    #
    # Two families, each held to a 5% false-decision rate over every
    # decision in it, decided or not (ErrorBudget: Bonferroni):
    #   primary    req/s, the comparisons the answer and run --decide rest on;
    #   secondary  p99 and PSS of the same pairs.
    # And over the looks: a run --decide run spends its rate over a look
    # after every round (Stats::Looks); a fixed run has one look.
    #
    # Within a run, values pair by round (the trial's "repetition": every
    # setup once per round, Plan#schedule) and the paired method is used.
    # Between two runs made at different times nothing pairs (the machine's
    # speed drifts between them): the unpaired method, one look.
    #
    # A trial that served nothing (0 req/s) is a result, not a gap: its
    # req/s is taken as half a request over its measured duration (a
    # continuity correction), so a setup that answered nothing is decided
    # slower instead of dropped as "fewer than 2 repetitions".
    class Decisions
      METRICS = %w[rps latency_ms.p99 memory.pss_total_mb].freeze
      FAMILY = { "rps" => "primary", "latency_ms.p99" => "secondary", "memory.pss_total_mb" => "secondary" }.freeze
      FAMILIES = "two families, each at 5% over every decision in it, decided or not (Bonferroni): " \
                 "req/s the primary, p99 and PSS the secondary"

      # Words for B against A, per metric and outcome.
      WORDS = {
        "rps" => { higher: "faster", lower: "slower" },
        "latency_ms.p99" => { higher: "slower", lower: "faster" },
        "memory.pss_total_mb" => { higher: "larger", lower: "smaller" }
      }.freeze

      Entry = Struct.new(:endpoint, :level, :loop, :a, :b, :metric, :decision, keyword_init: true) do
        # faster | slower | equivalent | undecided (memory: larger | smaller),
        # and direction_faster, direction_slower ... when the direction is
        # known but not whether it is beyond the margin.
        def outcome
          o = decision.outcome
          return WORDS.fetch(metric).fetch(o) if %i[higher lower].include?(o)
          return "direction_#{WORDS.fetch(metric).fetch(decision.direction)}" if decision.direction

          o.to_s
        end

        # faster/slower (larger/smaller) for a known direction, nil otherwise.
        def direction_word
          decision.direction && WORDS.fetch(metric).fetch(decision.direction)
        end

        def decided?
          decision.decided?
        end

        def family = FAMILY.fetch(metric, "secondary")

        def to_h
          { "endpoint" => endpoint, "level" => level, "loop" => loop, "a" => a, "b" => b, "metric" => metric }
            .merge(decision.to_h, "outcome" => outcome, "family" => family)
        end
      end

      # What one decision is made from, before the families are counted.
      Candidate = Struct.new(:endpoint, :level, :loop, :a, :b, :metric, :xs, :ys, :paired, keyword_init: true)

      attr_reader :entries, :margin, :looks, :invalid

      # The run's race (Stats::Race: run --decide with three or more
      # setups), or nil; the answer reads its cells.
      attr_accessor :race

      # trials: one run's. margin: the equivalence margin (a share). looks:
      # the run's design (Looks.for_config(meta's config)); the look is at
      # the run's last round. cells: the trials' Cells when the caller has
      # them (a report: one grouping of 100,000 cells, not two).
      # config: the run's (meta.json's or the plan's), to know whether it
      # was a race (Stats::Race.on?).
      def self.for_run(trials, margin: Decision::DEFAULT_MARGIN, looks: Looks.fixed, cells: nil, config: nil)
        cells ||= Cells.new(trials)
        new(margin: margin, looks: looks).tap do |d|
          d.add_run(cells, look: rounds_of(trials))
          d.race = Race.new(cells, margin: margin, looks: looks) if Race.on?(config, cells.setups.size)
        end
      end

      # rows: Stats::Compare's rows (cells met in both runs, each with its
      # trials_a and trials_b); unpaired, A is RUN_A's cell. metrics: the
      # keys to decide (compare --fail-if-slower decides req/s alone).
      def self.for_comparison(rows, margin: Decision::DEFAULT_MARGIN, metrics: METRICS)
        new(margin: margin).tap { |d| d.add_rows(rows, metrics) }
      end

      def self.rounds_of(trials)
        trials.map { |t| t["repetition"].to_i }.max.to_i
      end

      # A metric's values in trials, a 0 req/s trial as a result (see above).
      def self.values(trials, key)
        metric = Metrics[key]
        trials.filter_map { |t| value(t, metric) }
      end

      def self.value(trial, metric)
        v = metric.values([trial]).first
        return v unless metric.key == "rps" && v&.zero?

        seconds = trial.dig("run", "duration_s") || trial["duration_s"]
        seconds.is_a?(Numeric) && seconds.positive? ? 0.5 / seconds : nil
      end

      # {round => value} of a metric in trials, a 0 req/s round as a result (see above).
      def self.round_values(trials, key)
        metric = Metrics[key]
        Family.round_values(trials) { |t| value(t, metric) }
      end

      def initialize(margin:, looks: Looks.fixed)
        @margin = margin
        @looks = looks
        @entries = []
        @index = {}
        @invalid = []
      end

      def add_run(cells, look:)
        candidates = []
        cells.endpoints.each do |endpoint|
          cells.levels(endpoint).each do |level|
            all = cells.setups(endpoint).filter_map { |s| cells[endpoint, s, level] }
            valid, bad = all.partition { |c| Validity.cell(c.records).valid? }
            @invalid.concat(bad)
            ranked = valid.sort_by { |c| -c.rps.median.to_f }
            rankings[[endpoint, level]] = ranked.map(&:setup)
            ranked.each_cons(2) { |a, b| candidates.concat(pair_candidates(a, b, level)) }
          end
        end
        build(candidates, look)
      end

      # {[endpoint, level] => valid setups, highest median req/s first}.
      def rankings
        @rankings ||= {}
      end

      # Each cell's neighbours in the ranking whose req/s is not decided
      # (undecided, direction only, or fewer than 2 rounds of both):
      # [[endpoint, level, a, b, entry or nil]]. What run --decide measures
      # more rounds for.
      def open_neighbours
        rankings.flat_map do |(endpoint, level), ranked|
          ranked.each_cons(2).filter_map do |a, b|
            entry = entry(endpoint, level, a, b, "rps")
            [endpoint, level, a, b, entry] if entry.nil? || !Decision::DECIDED.include?(entry.decision.outcome)
          end
        end
      end

      def add_rows(rows, metrics = METRICS)
        candidates = rows.flat_map do |row|
          metrics.map do |key|
            Candidate.new(endpoint: row.endpoint, level: row.level, loop: row.loop, a: row.setup, b: row.setup_b, metric: key,
                          xs: self.class.values(row.trials_a, key), ys: self.class.values(row.trials_b, key), paired: false)
          end
        end
        build(candidates, nil)
      end

      # The entry of one row's metric (nil: it could not be decided).
      def for_row(row, metric)
        entry(row.endpoint, row.level, row.setup, row.setup_b, metric)
      end

      def entry(endpoint, level, a, b, metric)
        @index[[endpoint, level, a, b, metric]]
      end

      # Entries of one cell, in the order added (leader's pairs first).
      def for_cell(endpoint, level)
        (@by_cell ||= @entries.group_by { |e| [e.endpoint, e.level] }).fetch([endpoint, level], [])
      end

      # How many decisions share each family's rate.
      def family_sizes
        @entries.map(&:family).tally
      end

      def any? = @entries.any?

      def to_a = @entries.map(&:to_h)

      private

      def pair_candidates(cell_a, cell_b, level)
        METRICS.filter_map do |key|
          xs, ys = by_round(cell_a.trials, cell_b.trials, key)
          next if xs.size < 2

          Candidate.new(endpoint: cell_a.endpoint, level: level, loop: cell_a.loop, a: cell_a.setup, b: cell_b.setup,
                        metric: key, xs: xs, ys: ys, paired: true)
        end
      end

      # Every candidate that can be decided counts in its family, decided or not (Stats::Family).
      def build(candidates, look)
        Family.decide(candidates, margin: @margin, looks: @looks, look: look,
                                  family_of: ->(c) { FAMILY.fetch(c.metric, "secondary") }) { |c, d| add(c, d) if d }
        @by_cell = nil
      end

      def add(candidate, decision)
        e = Entry.new(endpoint: candidate.endpoint, level: candidate.level, loop: candidate.loop, a: candidate.a,
                      b: candidate.b, metric: candidate.metric, decision: decision)
        @entries << e
        @index[[e.endpoint, e.level, e.a, e.b, e.metric]] = e
      end

      # The metric's values of the rounds both setups have, in round order.
      def by_round(trials_a, trials_b, key)
        Family.paired(self.class.round_values(trials_a, key), self.class.round_values(trials_b, key))
      end
    end
  end
end

# After the class: Race builds Decisions::Entry values and requires this file.
require_relative "race"
