# frozen_string_literal: true

require_relative "cells"
require_relative "decision"
require_relative "decisions"
require_relative "family"
require_relative "looks"
require_relative "validity"

module Rackbench
  module Stats
    # run --decide with three or more setups: each cell (endpoint x level)
    # is a race (racing: F-Race, Birattari et al. 2002). At each look (after
    # each round the design looks at: Stats::Looks), the cell's leader is the
    # contender with the highest median req/s over the rounds so far, and each
    # other contender is decided against it (req/s, paired by round, B / A
    # with A the leader: Stats::Decision). A contender decided slower than the
    # leader beyond the margin leaves the cell: no later round measures it
    # there (Runner::AdaptiveRounds asks #contender?). The cell ends
    #
    #   winner  one contender left: faster than every other beyond the margin;
    #   tie     every contender left equivalent to the leader within the
    #           margin (an equivalence group of leaders), the rest slower;
    #   open    neither yet: the budget or --max-rounds ends it, said as such.
    #
    # The family, stated: every pair of the cell's valid setups (k (k - 1) / 2
    # for k setups), at every look, shares the rate (ErrorBudget: Bonferroni
    # over the pairs, the design's alpha spending over the looks). The pairs
    # decided are chosen by the data (which setup leads), so the rate is held
    # over all the pairs the race could ask about, not the k - 1 it asks:
    # with every pair's intervals covering at once with probability >= 95%,
    # any choice among them is covered. Each cell is its own family: the rate
    # is per cell's answer (a wrong winner, a wrong tie or a wrong
    # elimination in that cell at most 5%), not per run. bench/race_check.rb
    # measures it.
    #
    # A decision, once made, is kept at the look it was made at: an
    # eliminated setup's interval is the one it was eliminated on. The race
    # is replayed look by look from the stored rounds, so a resumed run and a
    # report re-rendered later see the same eliminations as the run did.
    class Race
      # One cell's race. eliminated: {setup => Decisions::Entry (B the
      # setup, A the leader it lost to, at the look it left)}; versus:
      # {setup => Entry} for the contenders left, against the leader at the
      # last look.
      # setups: every setup measured in the cell; valid: those whose cell is
      # valid at the last look (Stats::Validity on its rounds so far); the
      # race is run among the valid contenders.
      Cell = Struct.new(:endpoint, :level, :loop, :setups, :valid, :contenders, :leader, :eliminated, :versus, :look,
                        :family, :hopeless, keyword_init: true) do
        def racing = contenders & valid

        def outcome
          return :winner if racing.size == 1 && valid.size > 1
          return :tie if racing.size > 1 && versus.size == racing.size - 1 &&
                         versus.values.all? { |e| e.decision.outcome == :equivalent }

          :open
        end

        def decided? = outcome != :open

        # The eliminated setups, the last to leave (the closest) first.
        def losers
          eliminated.sort_by { |setup, e| [-e.decision.look.to_i, -e.decision.ratio, setup] }.map(&:first)
        end

        def to_h
          { "endpoint" => endpoint, "level" => level, "loop" => loop, "outcome" => outcome.to_s, "leader" => leader,
            "contenders" => racing, "not_valid" => setups - valid, "family" => family, "look" => look,
            "eliminated" => eliminated.to_h { |s, e| [s, e.to_h.merge("at_round" => e.decision.look)] },
            "versus" => versus.transform_values(&:to_h) }
        end
      end

      attr_reader :cells, :margin, :looks

      # How many decisions share a cell's rate: :pairs, every pair of its k
      # setups (k (k - 1) / 2, the default: see above), or :leader, the k - 1
      # a look decides (a setting for bench/race_check.rb, which measures both).
      FAMILIES = %i[pairs leader].freeze

      # Whether a run is a race: --decide with three or more setups, unless
      # the plan says race: false (a setting, not a flag: the neighbours'
      # rule of Stats::Decisions then decides).
      def self.on?(config, setups)
        return false unless config.respond_to?(:key?)

        get = ->(k) { config.key?(k) ? config[k] : (config[k.to_s] if config.is_a?(Hash)) }
        get.call(:decide) == true && get.call(:race) != false && setups.to_i >= 3
      end

      def self.for_run(trials, margin: Decision::DEFAULT_MARGIN, looks: Looks.fixed, cells: nil, family: :pairs)
        new(cells || Cells.new(trials), margin: margin, looks: looks, family: family)
      end

      def initialize(cells, margin:, looks:, family: :pairs)
        raise ArgumentError, "family: one of #{FAMILIES.join(', ')}" unless FAMILIES.include?(family)

        @margin = margin
        @looks = looks
        @family = family
        @cells = []
        cells.endpoints.each do |endpoint|
          cells.levels(endpoint).each do |level|
            all = cells.setups(endpoint).filter_map { |s| cells[endpoint, s, level] }
            @cells << run(endpoint, level, all) if all.size >= 2
          end
        end
      end

      def open = @cells.reject(&:decided?)

      # The race of a cell (nil: fewer than two setups measured there). A
      # level compares by value: the plan's c=8 finds the stored 8, its r=50 the 50.0.
      def [](endpoint, level)
        @cells.find { |c| c.endpoint == endpoint && c.level == level }
      end

      # Whether a later round measures setup in this cell: a cell still
      # racing, setup not eliminated. A setup whose cell is not valid yet is
      # measured on (its next rounds may make it valid: one bad trial of
      # three leaves a cell valid), unless its trials are too short for
      # their latency (Validity's "short": the same -d stays too short).
      def contender?(endpoint, level, setup)
        cell = self[endpoint, level]
        !cell.nil? && !cell.decided? && cell.contenders.include?(setup) && !cell.hopeless.include?(setup)
      end

      def to_a = @cells.map(&:to_h)

      private

      # The family counts every setup measured in the cell (valid or not:
      # a setup whose cell becomes valid later joins the race, and the
      # family is fixed before the first look).
      def run(endpoint, level, all)
        series = all.to_h { |c| [c.setup, round_values(c.trials)] }
        records = all.to_h { |c| [c.setup, c.records] }
        rounds = series.values.flat_map(&:keys).max.to_i
        k = all.size
        size = @family == :pairs ? k * (k - 1) / 2 : k - 1
        cell = Cell.new(endpoint: endpoint, level: level, loop: all.first.loop, setups: all.map(&:setup), valid: [],
                        contenders: all.map(&:setup), leader: nil, eliminated: {}, versus: {}, look: nil, family: size)
        @looks.looks_until(rounds).each do |look|
          cell.valid = valid_at(records, look)
          break if cell.decided?

          step(cell, series, look)
        end
        cell.valid = valid_at(records, rounds)
        cell.hopeless = all.map(&:setup).select { |s| Validity.cell(records[s]).kinds.include?("short") }
        cell.leader ||= leader(cell.racing.empty? ? cell.contenders : cell.racing, series, rounds)
        cell
      end

      # The setups whose cell is valid on its rounds up to look.
      def valid_at(records, look)
        records.select { |_, rs| Validity.cell(rs.select { |r| (r["repetition"] || 1) <= look }).valid? }.keys
      end

      # One look: the leader, each contender against it, the slower beyond
      # the margin out.
      def step(cell, series, look)
        racing = cell.racing
        return if racing.size < 2

        upto = series.transform_values { |by_round| by_round.select { |r, _| r <= look } }
        cell.leader = leader(racing, upto, look)
        cell.look = look
        cell.versus = {}
        candidates = (racing - [cell.leader]).map do |setup|
          xs, ys = Family.paired(upto.fetch(cell.leader), upto.fetch(setup))
          Decisions::Candidate.new(endpoint: cell.endpoint, level: cell.level, loop: cell.loop, a: cell.leader, b: setup,
                                   metric: "rps", xs: xs, ys: ys, paired: true)
        end
        Family.decide(candidates, margin: @margin, looks: @looks, look: look, size: { all: cell.family }) do |c, d|
          next unless d

          entry = Decisions::Entry.new(**c.to_h.slice(:endpoint, :level, :loop, :a, :b, :metric), decision: d)
          d.outcome == :lower ? cell.eliminated[c.b] = entry : cell.versus[c.b] = entry
        end
        cell.contenders -= cell.eliminated.keys
      end

      def leader(contenders, series, _look)
        contenders.max_by { |s| [median(series.fetch(s).values), s] }
      end

      def median(values)
        return -Float::INFINITY if values.empty?

        sorted = values.sort
        (sorted[(sorted.size - 1) / 2] + sorted[sorted.size / 2]) / 2.0
      end

      # {round => req/s} (a 0 req/s trial as half a request: Decisions.value).
      def round_values(trials) = Decisions.round_values(trials, "rps")
    end
  end
end
