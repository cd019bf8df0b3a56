# frozen_string_literal: true

require_relative "decisions"

module Rackbench
  module Stats
    # The decisions between setups (Decisions) in words that match
    # their evidence, one line per pair of setups in a cell:
    #
    #   /hello c=8  unicorn x2 against puma x2:5 (5 rounds): req/s slower by 15% (95% CI 8-21%);
    #               p99 undecided (95% CI -20% to +45%, about 30 more rounds); PSS equivalent within +-5%
    #
    # Each interval is the one its outcome was read from: 95% for its family
    # over every look (ErrorBudget), so with more decisions in a family,
    # or a run --decide's looks, it is wider than a lone 95% interval.
    #
    # Shared by the terminal (run, report) and Markdown; the HTML report and
    # the JSON document read the same Decisions. It lives beside the
    # decisions, not in report/: the runner (run --decide's lines), tune's
    # words and a suite's findings say decisions too, and take them from
    # here rather than from the renderers above them (Report::DecisionText
    # names this module for the reports).
    module DecisionText
      LABELS = { "rps" => "req/s", "latency_ms.p99" => "p99", "memory.pss_total_mb" => "PSS" }.freeze

      module_function

      # Lines for the whole family; [] when no cell had 2 rounds.
      def lines(decisions)
        pairs(decisions).map { |entries| line(entries) }
      end

      # The family's entries grouped by pair of setups in a cell, in order.
      def pairs(decisions)
        return [] unless decisions.any?

        decisions.entries.group_by { |e| [e.endpoint, e.level, e.loop, e.a, e.b] }.values
      end

      def line(entries)
        e = entries.first
        rounds = entries.map { |x| x.decision.rounds }.max
        "#{e.endpoint} #{level_label(e.level, e.loop)}  #{e.b} against #{e.a} " \
          "(#{rounds} #{rounds == 1 ? 'round' : 'rounds'}): " + entries.map { |x| phrase(x) }.join("; ")
      end

      # A pair is listed on the terminal's first reading when any of its
      # measures reached an outcome (decided, equivalent or a known
      # direction); a pair undecided on every measure is counted there and
      # listed with --why (and in the Markdown and HTML reports), so that a
      # race of six setups does not print twenty lines of "undecided" above
      # its Answer (issue 42, item 6). At most LIST_ALL pairs are always
      # listed whole.
      LIST_ALL = 6

      def open?(entries)
        entries.all? { |e| e.decision.outcome == :undecided && e.decision.direction.nil? }
      end

      # The header line states the rule, the families and the looks: every
      # interval below is the one its words were read from.
      def header(decisions)
        methods = decisions.entries.map { |e| e.decision.method }.uniq.join("; ")
        sizes = decisions.family_sizes
        counts = %w[primary secondary].filter_map { |f| sizes[f] && "#{f} #{sizes[f]}" }.join(", ")
        "Decisions (B against A, A the faster in req/s; #{methods}; equivalence margin " \
          "+-#{pct(decisions.margin * 100)}%; #{Decisions::FAMILIES} (#{counts}); " \
          "#{decisions.looks.describe}; each interval is the family's 95% one at its look, the one decided on):"
      end

      # "faster by 18% (95% CI 9-27%)", "equivalent within +-5% (95% CI -2% to +3%)",
      # "faster, by 3.4-11% (95% CI; beyond +-5% undecided, about 4 more rounds)",
      # "undecided (95% CI -20% to +45%, about 30 more rounds)".
      # The interval is the decision's own (its family's and look's level).
      # label: the metric's name first (nil: none, where a column names it);
      # unit: what more of would decide it (compare: "repetitions").
      def phrase(entry, label: LABELS.fetch(entry.metric, entry.metric), unit: "rounds")
        text = outcome_phrase(entry, label, unit)
        note = entry.decision.dependence&.warning
        note ? "#{text} [#{note}]" : text
      end

      def outcome_phrase(entry, label, unit)
        d = entry.decision
        label = label ? "#{label} " : ""
        ci = "95% CI #{signed(d.low_pct)} to #{signed(d.high_pct)}"
        case d.outcome
        when :higher, :lower
          lo, hi = [d.low_pct.abs, d.high_pct.abs].sort
          return "#{label}#{entry.outcome} by #{pct(d.change_pct.abs)}% (95% CI #{pct(lo)}-#{pct(hi)}%)" if d.change_pct.abs < 50

          # Far apart: the ratio says it better than a percentage (0.2x, 5x).
          "#{label}#{entry.outcome}: B/A #{times(d.ratio)} (95% CI #{times(d.ci_low)}-#{times(d.ci_high)})"
        when :equivalent then "#{label}equivalent within +-#{pct(d.margin * 100)}% (#{ci})"
        when :direction_higher, :direction_lower
          lo, hi = [d.low_pct.abs, d.high_pct.abs].sort
          "#{label}#{entry.direction_word}, by #{pct(lo)}-#{pct(hi)}% (95% CI; beyond +-#{pct(d.margin * 100)}% " \
            "undecided#{more(d, unit)})"
        else
          return "#{label}undecided (#{too_wide(d, unit)}#{more(d, unit)})" if too_wide?(d)

          "#{label}undecided (#{ci}#{more(d, unit)})"
        end
      end

      # Too wide to read: an undecided interval whose high end is more than
      # WIDE times its low end, i.e. wider than from half to double (a
      # factor of 2 either way of its middle, on the log scale the decision
      # is made on). Its numbers ("-95% to +1242%") then say only that
      # nothing is known, so the words say that and why (the spread of a
      # round); the JSON and HTML keep the numbers.
      WIDE = 4.0

      def too_wide?(decision)
        decision.outcome == :undecided && decision.ci_high > WIDE * decision.ci_low
      end

      def too_wide(decision, unit = "rounds")
        "too wide to read: the per-#{unit.delete_suffix('s')} spread of B/A is #{pct(decision.spread_pct)}%"
      end

      def more(decision, unit = "rounds")
        need = decision.rounds_needed
        if need.nil?
          return decision.out_of_looks? ? ", not decidable by round #{decision.budget.looks.max} (the last look) at this spread" : ""
        end
        return ", over #{Decision::MAX_ROUNDS} #{unit} would not decide it" if need >= Decision::MAX_ROUNDS

        extra = [need - decision.rounds, 1].max
        ", about #{extra} more #{extra == 1 ? unit.delete_suffix('s') : unit}"
      end

      def level_label(level, loop)
        loop == "open" ? "r=#{format('%g', level)}" : "c=#{level}"
      end

      def signed(value)
        "#{value.negative? ? '-' : '+'}#{pct(value.abs)}%"
      end

      def times(ratio)
        "#{format('%.3g', ratio)}x"
      end

      def pct(value)
        value >= 10 ? value.round.to_s : format("%.1f", value).sub(/\.0\z/, "")
      end

      # Why nothing was decided: cells that have a pair to decide lack the
      # rounds (or --decide's first look); cells not valid (Validity) leave
      # a setup out of its cell's ranking, and more rounds never change that.
      def no_decisions(decisions)
        pairs = decisions.rankings.values.any? { |ranked| ranked.size > 1 }
        why = []
        why << few_rounds(decisions.looks) if pairs || decisions.invalid.empty?
        why << not_valid(decisions.invalid) if decisions.invalid.any?
        "No decisions between setups: #{why.join('; ')}."
      end

      def few_rounds(looks)
        return "a cell needs 2 or more rounds of each (run -r 3 or more)" unless looks.sequential?

        "--decide takes its first look at round #{looks.first} (run --resume to go on)"
      end

      # "1 cell not valid (too short for its latency: run again with -d 9 or
      # longer), which no number of rounds decides".
      def not_valid(cells)
        checks = cells.map { |c| Validity.cell(c.trials) }
        needs = checks.filter_map(&:needs_s).max
        what = []
        what << "too short for its latency: run again with -d #{needs} or longer" if needs
        others = checks.flat_map(&:kinds).uniq - ["short"]
        what << "#{others.map { |k| NOT_VALID.fetch(k, k) }.join(', ')}: see the notes under the tables" if others.any?
        "#{cells.size} #{cells.size == 1 ? 'cell' : 'cells'} not valid (#{what.join('; ')}), which no number of rounds decides"
      end

      NOT_VALID = { "little" => "Little's law does not hold", "schedule" => "the trial did not hold its schedule" }.freeze

      # The block the terminal prints after the table; setups: how many the
      # run compared (one setup: nothing to decide, nothing said).
      # why: list every pair (report --why); otherwise the pairs undecided
      # on every measure are counted, with the command that lists them
      # (run_dir: the run's directory, named in that command).
      def render(decisions, io, setups: 2, why: true, run_dir: nil)
        groups = pairs(decisions)
        if groups.empty?
          io.puts no_decisions(decisions) if setups > 1
          return
        end

        io.puts header(decisions)
        open = why || groups.size <= LIST_ALL ? [] : groups.select { |g| open?(g) }
        (groups - open).each { |g| io.puts "  #{line(g)}" }
        io.puts "  #{counted(open, run_dir)}" if open.any?
      end

      # "17 more pairs undecided on every measure (per-round spread of B/A in
      # req/s 5.3-34%): rackbench report DIR --why lists them".
      def counted(open, run_dir)
        spreads = open.filter_map { |g| g.find { |e| e.metric == "rps" }&.decision&.spread_pct }
        spread = spreads.empty? ? "" : " (per-round spread of B/A in req/s #{pct(spreads.min)}-#{pct(spreads.max)}%)"
        "#{open.size} #{open.size == 1 ? 'pair' : 'pairs'} undecided on every measure#{spread}: " \
          "rackbench report #{run_dir || 'RUN_DIR'} --why lists #{open.size == 1 ? 'it' : 'them'}"
      end
    end
  end
end
