# frozen_string_literal: true

require_relative "../stats/compare"
require_relative "../stats/cpu_speed"
require_relative "decision_text"
require_relative "number_format"

module Rackbench
  module Report
    # The terminal form of `rackbench compare`: a header naming the method,
    # the margin and the family correction; one table per endpoint (a line
    # per cell and metric: A and B as mean ± sd over n repetitions, the
    # change B/A and the decision in DecisionText's words); the cells found
    # in one run only; a one-line tally. A paired row names both setups,
    # "A's label → B's label". suggested: pairs of setups left in one run
    # only that are the same configuration but for the runtime ([[A, B],
    # ...]), shown with the --pair arguments that would compare them.
    # a, b: { path:, meta:, calibration: (calibration.jsonl lines) }.
    class Comparison
      ENV_KEYS = { "hostname" => "host", "cpu_model" => "CPU", "cores" => "cores", "ruby" => "Ruby", "kernel" => "kernel" }.freeze
      TOO_FEW = "cannot decide: n<2 (run -r 3)"

      def initialize(compare, a:, b:, io:, suggested: [], margin_source: "the default")
        @compare = compare
        @suggested = suggested
        @margin_source = margin_source
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

      # The decision in words, the metric named by its column.
      def self.verdict_text(change)
        return DecisionText.phrase(change.entry, label: nil, unit: "repetitions") if change.entry
        return TOO_FEW if change.too_few?

        "cannot decide: a repetition measured 0"
      end

      private

      def header
        margin = DecisionText.pct(@compare.margin * 100)
        @io.puts "A: #{describe(@a)}"
        @io.puts "B: #{describe(@b)}"
        @io.puts "Method: two runs made at different times cannot be paired (the machine's speed moves between them): " \
                 "each cell's repetitions in A and in B are compared #{Stats::Decision::UNPAIRED}; " \
                 "change = B/A - 1 from the geometric means."
        @io.puts "Decision: B faster/slower than A when the interval of B/A (its family's 95%) lies beyond +-#{margin}% (the margin: " \
                 "#{@margin_source}; --margin sets it), equivalent when it lies within +-#{margin}% (two one-sided tests), " \
                 "undecided otherwise, with about how many more repetitions would decide it; " \
                 "#{Stats::Decisions::FAMILIES}, #{@compare.decisions.entries.size} here; each interval is its family's 95% one."
        @io.puts "Latency is closed-loop (measured from each request's send; hides coordinated omission)."
        notes.each { |line| @io.puts "Note: #{line}" }
      end

      def notes
        differences = ENV_KEYS.select { |k, _| @a[:meta][k] != @b[:meta][k] }.values
        env = differences.empty? ? [] : ["the runs differ in #{differences.join(', ')}; a difference may come from the machine, not the servers."]
        env + version_notes + speed_notes
      end

      # Server and load-engine versions (meta.json's servers and engine) that
      # differ between the runs, each named with both versions: a change may
      # be the new version's, not the configuration's.
      def version_notes
        a_servers = @a[:meta]["servers"].is_a?(Hash) ? @a[:meta]["servers"] : {}
        b_servers = @b[:meta]["servers"].is_a?(Hash) ? @b[:meta]["servers"] : {}
        changed = (a_servers.keys & b_servers.keys).reject { |k| a_servers[k] == b_servers[k] }
                                                  .map { |k| "#{k} #{a_servers[k] || '?'} in A, #{b_servers[k] || '?'} in B" }
        engine = ->(meta) { meta["engine"].is_a?(Hash) ? "#{meta['engine']['name']} #{meta['engine']['version']}".strip : nil }
        a_engine = engine.call(@a[:meta])
        b_engine = engine.call(@b[:meta])
        changed << "load engine #{a_engine} in A, #{b_engine} in B" if a_engine && b_engine && a_engine != b_engine
        return [] if changed.empty?

        ["versions differ: #{changed.join('; ')}; a difference may come from the version, not the setup."]
      end

      # What the runs' CPU-speed calibrations say (nothing for runs without).
      def speed_notes
        speed = Stats::CpuSpeed.new(@a[:calibration], @b[:calibration], margin: @compare.margin)
        lines = speed.drifts.map do |d|
          "#{d.run}'s CPU speed moved by #{DecisionText.pct((d.ratio - 1) * 100)}% while it ran (CPU-speed calibration, " \
            "iterations per CPU-second: #{d.readings.map { |phase, v| "#{phase} #{v.round}" }.join(', ')}): more than the +-" \
            "#{DecisionText.pct(@compare.margin * 100)}% margin and beyond the readings' own spread, so its cells may mix fast and slow periods."
        end
        if (b = speed.between)
          lines.unshift("the machine ran a fixed Ruby workload #{DecisionText.pct(((b.ratio - 1) * 100).abs)}% " \
                        "#{b.ratio > 1 ? 'faster' : 'slower'} in B than in A (CPU-speed calibration, " \
                        "iterations per CPU-second: A #{b.a.round}, B #{b.b.round}), more than the margin and the readings' own spread: " \
                        "a difference may come " \
                        "from the machine, not the servers; setups measured in one run are paired by its rounds.")
        end
        lines
      end

      def describe(run)
        meta = run[:meta]
        servers = meta["servers"].is_a?(Hash) ? meta["servers"].map { |k, v| "#{k} #{v}" }.join(", ") : nil
        details = [meta["started_at"], meta["hostname"], servers].compact.join(", ")
        details.empty? ? run[:path].to_s : "#{run[:path]} (#{details})"
      end

      def table(endpoint, rows)
        lines = [[endpoint, "c", "metric", "A", "B", "change", "decision"]]
        rows.each do |row|
          row.changes.each_with_index do |ch, i|
            lines << [i.zero? ? row.label : "", i.zero? ? row.level.to_s : "", ch.metric.label,
                      value(ch.a, ch.metric), value(ch.b, ch.metric), pct(ch.change_pct), self.class.verdict_text(ch)]
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

      def only(run, cells)
        return if cells.empty?

        @io.puts
        @io.puts "Only in #{run} (not compared):"
        cells.each { |c| @io.puts "  #{c.endpoint}  #{c.setup}  c=#{c.level}" }
      end

      def suggest
        return if @suggested.empty?

        @io.puts
        @io.puts "To compare the setups above that are the same configuration but for the runtime, add #{self.class.pair_arguments(@suggested)}"
      end

      def tally
        rps = @compare.rows.filter_map { |r| r.change("rps") }
        words = rps.map { |ch| ch.outcome.sub(/\Adirection_(\w+)\z/, '\1 (size undecided)') }
        parts = words.tally.sort_by { |_, n| -n }.map { |word, n| "#{n} #{word}" }
        one_run = @compare.only_a.size + @compare.only_b.size
        "req/s in #{rps.size} cell(s) compared: #{parts.empty? ? 'none' : parts.join(', ')}" \
          "#{one_run.positive? ? "; #{one_run} in one run only" : ''}."
      end

      def print_rows(rows)
        widths = rows.transpose.map { |col| col.map(&:length).max }
        rows.each_with_index do |row, i|
          @io.puts row.each_with_index.map { |t, j| [0, 2, 6].include?(j) ? t.ljust(widths[j]) : t.rjust(widths[j]) }.join("  ").rstrip
          @io.puts widths.map { |w| "-" * w }.join("  ") if i.zero?
        end
      end
    end
  end
end
