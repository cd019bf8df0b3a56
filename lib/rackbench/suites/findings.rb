# frozen_string_literal: true

require_relative "../stats/cells"
require_relative "../stats/summary"
require_relative "../stats/decision"
require_relative "../report/number_format"
require_relative "../stats/decision_text"

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

      # A decision seen from the other side: B against A read as A against B
      # (the ratio, its interval and faster/slower turned round).
      Flipped = Struct.new(:decision) do
        def outcome
          { higher: :lower, lower: :higher, direction_higher: :direction_lower, direction_lower: :direction_higher }
            .fetch(decision.outcome, decision.outcome)
        end

        def ratio = 1 / decision.ratio
        def ci_low = 1 / decision.ci_high
        def ci_high = 1 / decision.ci_low
        def low_pct = (ci_low - 1) * 100
        def high_pct = (ci_high - 1) * 100
        def method = decision.method
        def rounds = decision.rounds
        def rounds_needed = decision.rounds_needed
        def budget = decision.budget
        def out_of_looks? = decision.out_of_looks?
        def margin = decision.margin
      end

      # Two setups' req/s in one cell (endpoint x level): a ahead, b ahead or
      # level. decision: a's req/s against b's (Stats::Decision, or Flipped),
      # nil with fewer than 2 rounds on a side.
      Comparison = Struct.new(:a, :b, :a_values, :b_values, :decision, keyword_init: true) do
        def a_rps
          Stats::Summary.of(a_values).median
        end

        def b_rps
          Stats::Summary.of(b_values).median
        end

        def ratio
          b_rps.to_f.positive? ? a_rps / b_rps : Float::INFINITY
        end

        # :a or :b (decided ahead beyond the margin), :level (equivalent
        # within it; single run: medians within LEVEL) or :unclear (undecided).
        def verdict
          case decision&.outcome
          when :higher then :a
          when :lower then :b
          when :equivalent then :level
          when :undecided, :direction_higher, :direction_lower then :unclear
          else none? || (ratio - 1).abs < LEVEL ? :level : leader
          end
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

        # The decision in the words every report uses (Stats::DecisionText),
        # with its method: "decided: 95% CI +9% to +27%, paired over 3 rounds".
        def note
          d = decision
          if d.nil?
            return "single run: nothing decided" if a_values.size < 2 && b_values.size < 2
            return "fewer than 2 rounds on one side: nothing decided" if a_values.size < 2 || b_values.size < 2

            return "a round with no successful response: no ratio to decide"
          end
          ci = "95% CI #{Stats::DecisionText.signed(d.low_pct)} to #{Stats::DecisionText.signed(d.high_pct)}, #{how(d)}"
          case d.outcome
          when :higher, :lower then "decided: #{ci}"
          when :equivalent then "equivalent within +-#{Stats::DecisionText.pct(d.margin * 100)}%: #{ci}"
          else "undecided: #{ci}#{Stats::DecisionText.more(d)}"
          end
        end

        def how(decision)
          paired = decision.method == Stats::Decision::PAIRED
          paired ? "paired over #{decision.rounds} rounds" : "unpaired over #{a_values.size} and #{b_values.size} rounds"
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
          xs, ys = Stats::Decision.align(b, o)
          budget = @budget || Stats::ErrorBudget.plain
          if xs.size >= 2
            Stats::Decision.of(xs, ys, paired: true, margin: LEVEL, budget: budget)
          else
            Stats::Decision.of(b.values, o.values, paired: false, margin: LEVEL, budget: budget)
          end
        end

        # {round => goodput} of one cell (the trial's repetition is its round).
        def by_round(endpoint, setup, level)
          (cell(endpoint, setup, level)&.trials || []).each_with_object({}) do |t, out|
            v = t["goodput_rps"] || t["rps"]
            out[t["repetition"] || 1] = v if v
          end
        end
      end
    end
  end
end
