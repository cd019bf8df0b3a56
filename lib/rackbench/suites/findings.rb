# frozen_string_literal: true

require_relative "../stats/decision"
require_relative "../report/number_format"
require_relative "../stats/decision_text"
# Its parts (each may use LEVEL and FAR): the stored trials as cells, two
# setups compared in one, and a decision seen from the other side.
require_relative "findings/view"
require_relative "findings/comparison"
require_relative "findings/flipped"

module Rackbench
  module Suites
    # A finished suite's conclusions, with numbers, computed from the run
    # directory's stored trials only. Figures are medians of the repetitions
    # of a cell. With 2 or more rounds a difference is decided as every run
    # decides one (Stats::Decision, margin 5%): the ratio of the two setups'
    # req/s with a 95% interval from the per-round log ratios (paired: both
    # measured in each round; unpaired, Welch on the logs, only where the
    # rounds do not match), called ahead only when the interval lies beyond
    # the margin, level only when it lies inside it (equivalent), and
    # undecided otherwise. All the comparisons one suite's findings make are
    # one family, held to 5% over every one of them (Stats::ErrorBudget:
    # Bonferroni; the interval worded is the family's). Without
    # rounds a line says "single run: nothing decided", and two medians within
    # LEVEL of each other are called level, not ranked.
    module Findings
      LEVEL = Stats::Decision::DEFAULT_MARGIN # single runs: medians this close are "level"; also the decisions' margin
      FAR = 2.0    # "far ahead": at least twice the other's req/s

      module_function

      # Prints the findings of the suite recorded in the run's meta.json
      # (nothing when the run was not a suite).
      def report(store, io:)
        name = store.meta["suite"]
        return if name.nil?

        suite = suite(name)
        io.puts
        io.puts "Findings of suite #{name} (#{suite::SEED ? "seed #{suite::SEED}" : "new"}: #{suite::TITLE}), from the stored trials " \
                "(req/s: successful responses, median of the rounds; a difference decided over the rounds, margin " \
                "+-#{Stats::DecisionText.pct(LEVEL * 100)}%, one family at 5% over every comparison made):"
        lines_for(name, store.trials).each { |line| io.puts "  - #{line}" }
      end

      # The findings run twice: once to meet every comparison they make, then,
      # with the family's size known (each comparison's share of the rate),
      # to decide and word them.
      def lines_for(name, trials)
        view = View.new(trials)
        return ["no trials were stored: nothing to conclude (see the failures above)"] if view.empty?

        suite = suite(name)
        suite.findings(view)
        view.family!
        suite.findings(view)
      end

      # The suite's module. suites.rb is required here, not at the top:
      # it loads every suite, and each suite's file requires this one for
      # its findings, so a top-level require would be a cycle at load.
      def suite(name)
        require_relative "../suites"
        Suites.fetch(name)
      end

      def rps(value)
        Report::NumberFormat.rps(value)
      end

      def ms(value)
        Report::NumberFormat.ms(value)
      end
    end
  end
end
