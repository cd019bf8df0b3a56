# frozen_string_literal: true

require_relative "../stats/compare"
require_relative "number_format"

module Rackbench
  module Report
    # The terminal form of `rackbench compare`: a header naming the test, one
    # table per endpoint (a line per cell and metric: A and B as mean ± sd over
    # n repetitions, the change of the means, Welch's p and the verdict), the
    # cells found in one run only, and a one-line tally. A paired row names
    # both setups, "A's label → B's label". suggested: pairs of setups left
    # in one run only that are the same configuration but for the runtime
    # ([[A, B], ...]), shown with the --pair arguments that would compare them.
    class Comparison
      WORDS = {
        "rps" => { higher: "faster", lower: "slower" },
        "latency_ms.p99" => { higher: "slower (p99 up)", lower: "faster (p99 down)" }
      }.freeze
      DEFAULT_WORDS = { higher: "larger", lower: "smaller" }.freeze
      ENV_KEYS = { "hostname" => "host", "cpu_model" => "CPU", "cores" => "cores", "ruby" => "Ruby", "kernel" => "kernel" }.freeze

      def initialize(compare, a:, b:, io:, suggested: [])
        @compare = compare
        @suggested = suggested
        @a = a
        @b = b
        @io = io
      end

      def render
        header
        @compare.rows.group_by(&:endpoint).each { |endpoint, rows| table(endpoint, rows) }
        only("A", @compare.only_a)
        only("B", @compare.only_b)
        suggest
        @io.puts
        @io.puts tally
      end

      # The --pair arguments for [[A, B], ...], ready to paste (labels are
      # setups, which hold no quote or shell metacharacter).
      def self.pair_arguments(pairs)
        pairs.map { |a, b| %(--pair "#{a}=#{b}") }.join(" ")
      end

      def self.verdict_text(change)
        case change.verdict
        when :untestable then "n<2, cannot test"
        when :no_variance then Stats::Welch::NO_VARIANCE
        when :same then "same within noise"
        else WORDS.fetch(change.metric.key, DEFAULT_WORDS).fetch(change.verdict)
        end
      end

      private

      def header
        @io.puts "A: #{describe(@a)}"
        @io.puts "B: #{describe(@b)}"
        @io.puts "Method: #{Stats::Welch::METHOD}; change = difference of the means, B against A."
        @io.puts "\"same within noise\": the test does not support a difference (p >= 0.05); " \
                 "\"n<2, cannot test\": fewer than 2 repetitions in a run (use -r 3 or more); " \
                 "\"#{Stats::Welch::NO_VARIANCE}\": every repetition gave the same figure in both runs."
        @io.puts "Latency is closed-loop (measured from each request's send; hides coordinated omission)."
        differences = ENV_KEYS.select { |k, _| @a[:meta][k] != @b[:meta][k] }.values
        return if differences.empty?

        @io.puts "Note: the runs differ in #{differences.join(', ')}; a difference may come from the machine, not the servers."
      end

      def describe(run)
        meta = run[:meta]
        servers = meta["servers"].is_a?(Hash) ? meta["servers"].map { |k, v| "#{k} #{v}" }.join(", ") : nil
        details = [meta["started_at"], meta["hostname"], servers].compact.join(", ")
        details.empty? ? run[:path].to_s : "#{run[:path]} (#{details})"
      end

      def table(endpoint, rows)
        lines = [[endpoint, "c", "metric", "A", "B", "change", "p", "verdict"]]
        rows.each do |row|
          row.changes.each_with_index do |ch, i|
            lines << [i.zero? ? row.label : "", i.zero? ? row.concurrency.to_s : "", ch.metric.label,
                      value(ch.a, ch.metric), value(ch.b, ch.metric), pct(ch.change_pct), p_value(ch),
                      self.class.verdict_text(ch)]
          end
        end
        @io.puts
        print_rows(lines)
      end

      def value(summary, metric)
        text = case metric.unit
               when "req/s" then NumberFormat.rps(summary.mean)
               when "ms" then NumberFormat.ms(summary.mean)
               else format("%.1f %s", summary.mean, metric.unit).strip
               end
        spread = summary.n > 1 && summary.mean.positive? ? " ±#{format('%.0f', summary.stdev / summary.mean * 100)}%" : ""
        "#{text}#{spread} n=#{summary.n}"
      end

      def pct(value)
        value.nil? ? "-" : format("%+.1f%%", value)
      end

      def p_value(change)
        return "-" unless change.test&.p

        change.test.p < 0.001 ? "<0.001" : format("%.3f", change.test.p)
      end

      def only(run, cells)
        return if cells.empty?

        @io.puts
        @io.puts "Only in #{run} (not compared):"
        cells.each { |c| @io.puts "  #{c.endpoint}  #{c.setup}  c=#{c.concurrency}" }
      end

      def suggest
        return if @suggested.empty?

        @io.puts
        @io.puts "To compare the setups above that are the same configuration but for the runtime, add #{self.class.pair_arguments(@suggested)}"
      end

      def tally
        rps = @compare.rows.filter_map { |r| r.changes.find { |ch| ch.metric.key == "rps" } }
        counts = rps.map { |ch| self.class.verdict_text(ch) }.tally
        parts = counts.sort_by { |_, n| -n }.map { |text, n| "#{n} #{text}" }
        "req/s in #{rps.size} cell(s) compared: #{parts.empty? ? 'none' : parts.join(', ')}" \
          "#{@compare.only_a.size + @compare.only_b.size > 0 ? "; #{@compare.only_a.size + @compare.only_b.size} in one run only" : ''}."
      end

      def print_rows(rows)
        widths = rows.transpose.map { |col| col.map(&:length).max }
        rows.each_with_index do |row, i|
          @io.puts row.each_with_index.map { |t, j| [0, 2, 7].include?(j) ? t.ljust(widths[j]) : t.rjust(widths[j]) }.join("  ").rstrip
          @io.puts widths.map { |w| "-" * w }.join("  ") if i.zero?
        end
      end
    end
  end
end
