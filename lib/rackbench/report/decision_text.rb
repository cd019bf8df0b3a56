# frozen_string_literal: true

require_relative "../stats/decisions"

module Rackbench
  module Report
    # The decisions between setups (Stats::Decisions) in words that match
    # their evidence, one line per pair of setups in a cell:
    #
    #   /hello c=8  unicorn x2 against puma x2:5 (5 rounds): req/s slower by 15% (95% CI 8-21%);
    #               p99 undecided (95% CI -20% to +45%, about 30 more rounds); PSS equivalent within +-5%
    #
    # Shared by the terminal (run, report) and Markdown; the HTML report and
    # the JSON document read the same Decisions.
    module DecisionText
      LABELS = { "rps" => "req/s", "latency_ms.p99" => "p99", "memory.pss_total_mb" => "PSS" }.freeze

      module_function

      # Lines for the whole family; [] when no cell had 2 rounds.
      def lines(decisions)
        return [] unless decisions.any?

        groups = decisions.entries.group_by { |e| [e.endpoint, e.level, e.loop, e.a, e.b] }
        groups.map do |(endpoint, level, loop, a, b), entries|
          rounds = entries.map { |e| e.decision.rounds }.max
          "#{endpoint} #{level_label(level, loop)}  #{b} against #{a} (#{rounds} #{rounds == 1 ? 'round' : 'rounds'}): " +
            entries.map { |e| phrase(e) }.join("; ")
        end
      end

      def header(decisions)
        methods = decisions.entries.map { |e| e.decision.method }.uniq.join("; ")
        "Decisions (B against A, A the faster in req/s; #{methods}; equivalence margin " \
          "+-#{pct(decisions.margin * 100)}%; #{Stats::Decisions::HOLM}):"
      end

      # "faster by 18% (95% CI 9-27%)", "equivalent within +-5% (95% CI -2% to +3%)",
      # "undecided (95% CI -20% to +45%, about 30 more rounds)".
      # label: the metric's name first (nil: none, where a column names it);
      # unit: what more of would decide it (compare: "repetitions").
      def phrase(entry, label: LABELS.fetch(entry.metric, entry.metric), unit: "rounds")
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
        else "#{label}undecided (#{ci}#{more(d, unit)})"
        end
      end

      def more(decision, unit = "rounds")
        need = decision.rounds_needed
        return "" if need.nil?
        return ", over #{Stats::Decision::MAX_ROUNDS} #{unit} would not decide it" if need >= Stats::Decision::MAX_ROUNDS

        extra = [need - decision.rounds, 1].max
        held = decision.held_by ? "; decided alone, but not among #{decision.held_by} decisions" : ""
        ", about #{extra} more #{extra == 1 ? unit.delete_suffix('s') : unit}#{held}"
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

      # The block the terminal prints after the table; setups: how many the
      # run compared (one setup: nothing to decide, nothing said).
      def render(decisions, io, setups: 2)
        body = lines(decisions)
        if body.empty?
          io.puts "No decisions between setups: a cell needs 2 or more rounds of each (run -r 3 or more)." if setups > 1
          return
        end

        io.puts header(decisions)
        body.each { |l| io.puts "  #{l}" }
      end
    end
  end
end
