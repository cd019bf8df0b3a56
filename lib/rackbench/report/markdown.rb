# frozen_string_literal: true

require_relative "dataset"
require_relative "streams"
require_relative "number_format"
require_relative "warmup_curve"
require_relative "decision_text"
require_relative "boots_note"
require_relative "answer_text"
require_relative "quiet_notes"
require_relative "protocol_note"
require_relative "validity_notes"
require_relative "verdict_grid"
require_relative "spool"
require_relative "../stats/verdict"

module Rackbench
  module Report
    # Markdown for a pull request or an issue: the answer first (AnswerText,
    # as on the terminal), the decisions, then one table per endpoint (setups
    # as rows, load levels as columns, c= or r= by each level's loop, like
    # the terminal table), each cell "median req/s ±cv · mean / p99 latency"
    # with the terminal's marks ("~" foreign load, "?" not valid) and their
    # notes; what limited each cell as a grid of labels with every reason
    # under it (folded); then failed setups and the method.
    class Markdown
      include Streams # #render: #write's rendering as one String

      def initialize(dataset)
        @data = dataset
      end

      # Into io a part at a time (each endpoint's tables as they are made):
      # a run of 100,000 cells is never one String (issue 35).
      def write(io)
        io.write("## rackbench: #{esc(run_name)}\n\n#{environment_line}\n")
        return io.write("\nNo trials are stored in this run directory yet.\n", failures) if @data.trials.empty?

        answer(io)
        io.write(decisions)
        @data.endpoints.each { |endpoint| io.write("\n", endpoint_table(endpoint)) }
        notes(io)
        verdicts(io)
        io.write(WarmupCurve.markdown(@data.trials, escape: method(:esc)), failures, "\n#{method_note}\n")
      end

      SPECIAL = /[\\`*_{}\[\]<>|#!~]/

      # Escapes what Markdown or the HTML GitHub allows in it would interpret.
      def self.escape(text)
        text.to_s.gsub(SPECIAL, "\\\\\\0").gsub(/\r?\n/, " ") # "\\" then the character
      end

      private

      def esc(text) = self.class.escape(text)

      # The answer first: per endpoint, the leader and the decision against the next.
      def answer(io)
        return if @data.setups.size < 2

        entries = AnswerText.entries(@data.trials, @data.decisions, cells: @data.cells, attributions: AnswerText.attributions(@data))
        return if entries.empty?

        io.write("\n**#{esc(AnswerText::HEAD.chomp(':'))}**\n\n")
        # run --profile's why lines nested under their answer
        lines = entries.lazy.flat_map { |e| [["- ", AnswerText.line(e)], *e.why.map { |w| ["  - ", w] }] }
        list(io, lines.chain(AnswerText.footnotes(entries).map { |l| ["- ", l] })) { |mark, l| "#{mark}#{esc(l)}" }
      end

      # Under the tables: what "?" and "~" mark, and wrk's latency correction as a note.
      def notes(io)
        lines = ValidityNotes.lines(@data.cells) + QuietNotes.lines(@data.trials).grep(/\A~/) +
                [ProtocolNote.line(@data.trials)].compact
        return if lines.empty?

        io.write("\n")
        lines.each_with_index do |line, i|
          indented = line.start_with?("  ")
          io.write(i.zero? ? "" : "\n", indented ? "  - " : "- ")
          # A line names every cell not valid (100,000 in a huge run): escaped
          # and written a name at a time (escaping is a character's own).
          (indented ? line.strip : line).each_line(", ") { |part| io.write(esc(part)) }
        end
        io.write("\n")
      end

      # Lines written one at a time as the block shapes them, "\n" after each.
      def list(io, lines)
        first = true
        lines.each do |line|
          io.write(first ? yield(line) : "\n#{yield(line)}")
          first = false
        end
        io.write("\n")
      end

      # What limited each cell: the labels as a table per endpoint, then
      # every reason (Stats::Verdict's numbers) folded under them. Each
      # cell's verdict is made once, for its label and its reason lines
      # both: the reasons, due after every table, are kept aside until then
      # (Spool: a huge run's 100,000 reasons are never held in memory).
      def verdicts(io)
        return if @data.cells.cells.empty?

        io.write("\n**What limited each cell** (Stats::Verdict)\n\n")
        Spool.open do |reasons|
          @data.endpoints.each_with_index do |endpoint, i|
            io.write("\n\n") if i.positive?
            io.write(verdict_table(endpoint, reasons))
          end
          io.write("\n\n<details><summary>Why: each cell's reasons</summary>\n\n")
          reasons.copy_to(io) # each line ends in "\n": the last one's is the blank line's
        end
        io.write("\n</details>\n")
      end

      # The endpoint's table of labels; each cell's reason lines into
      # reasons (a Spool) as its verdict is made, in the tables' order.
      def verdict_table(endpoint, reasons)
        levels = @data.cells.levels(endpoint)
        rows = @data.cells.setups(endpoint).map do |setup|
          labels = levels.map do |level|
            cell = @data.cells[endpoint, setup, level] or next "–"
            v = Stats::Verdict.for_cell(cell.trials)
            reasons.write("- #{esc(ValidityNotes.name(@data.cells, cell))}: **#{esc(v.label)}**: #{esc(v.reason)}\n")
            trust(cell, v).each { |line| reasons.write(line, "\n") }
            esc(VerdictGrid.short(v.label))
          end
          "| #{esc(setup)} | #{labels.join(' | ')} |"
        end
        ["| #{esc(endpoint)} | #{levels.map { |c| @data.cells.level_label(c) }.join(' | ')} |",
         "| --- | #{levels.map { '---' }.join(' | ')} |", *rows].join("\n")
      end

      # Under a cell's reason: its Little's-law note (wrk's correction marked
      # as a note, not an error) and why it is not valid.
      def trust(cell, verdict)
        check = ValidityNotes.check(cell)
        out = []
        if verdict.little&.holds == false
          artifact = check.artifacts.any? { |a| a.ratio == verdict.little.ratio }
          out << "  - #{artifact ? '(a note, not an error) ' : ''}#{esc(verdict.little.note)}"
        end
        out << "  - **#{esc(check.note)}**" unless check.valid?
        out
      end

      # The decisions (what the rounds concluded), then the tables.
      def decisions
        lines = DecisionText.lines(@data.decisions)
        return "" if lines.empty?

        boots = BootsNote.line(@data.setup_rows, @data.trials)&.then { |l| "\n#{esc(l)}\n" }
        "\n#{esc(DecisionText.header(@data.decisions))}\n\n#{lines.map { |l| "- #{esc(l)}" }.join("\n")}\n#{boots}"
      end

      def run_name
        @data.path ? File.basename(@data.path) : (@data.meta["started_at"] || "run")
      end

      def environment_line
        m = @data.meta
        parts = [("Ruby #{m['ruby'].to_s.split[1]}" if m["ruby"]), (m["cpu_model"] && "#{m['cpu_model']}, #{m['cores']} cores"),
                 (m["kernel"]), m["servers"].is_a?(Hash) && m["servers"].map { |s, v| "#{s} #{v}" }.join(", "),
                 (m.dig("engine", "name") && "#{m.dig('engine', 'name')} #{m.dig('engine', 'version')}".strip),
                 (m["started_at"] && "started #{m['started_at']}")]
        parts.select { |p| p.is_a?(String) && !p.empty? }.map { |p| esc(p) }.join(" · ")
      end

      def endpoint_table(endpoint)
        levels = @data.cells.levels(endpoint)
        lines = ["| #{esc(endpoint)} | #{levels.map { |c| @data.cells.level_label(c) }.join(' | ')} |",
                 "| --- | #{levels.map { '---:' }.join(' | ')} |"]
        @data.cells.setups(endpoint).each do |setup|
          lines << "| #{esc(setup)} | #{levels.map { |c| cell_text(@data.cells[endpoint, setup, c]) }.join(' | ')} |"
        end
        lines.join("\n") + "\n"
      end

      def cell_text(cell)
        return "–" unless cell

        rps = cell.rps
        text = +"**#{NumberFormat.rps(rps.median)}**"
        text << " ±#{format('%.0f', rps.cv * 100)}%" if rps.cv
        text << " · #{NumberFormat.ms(cell.latency('mean').median)} / #{NumberFormat.ms(cell.latency('p99').median)}"
        text << " ⚠ #{NumberFormat.count(cell.errors, 'error')}" if cell.errors.positive?
        text << esc(ValidityNotes.flag(cell)) << esc(QuietNotes.flag(cell.records)) # fields read, trials not decoded
        text
      end

      def failures
        failed = @data.failed_setups
        return "" if failed.empty?

        "\n**Failed setups**\n\n" + failed.map { |f| "- #{esc(f['setup'])} (repetition #{f['repetition']}): #{esc(f['reason'])}\n" }.join
      end

      def method_note
        min, max = @data.repetitions
        reps = min == max ? min.to_s : "#{min}–#{max}"
        "Cells: median req/s ±coefficient of variation over #{reps} repetition(s) · mean / p99 latency (medians). " \
          "Latency is #{latency_note}."
      end

      CLOSED = "closed-loop (measured from each request's send; hides coordinated omission)"
      OPEN = "open-loop (measured from each request's planned send)"

      def latency_note
        loops = @data.loops
        return "as the engine measured it" if loops.empty?
        return "#{CLOSED} at c= levels, #{OPEN} at r= levels" if loops.include?("closed") && loops.include?("open")

        loops.include?("closed") ? CLOSED : "#{loops.join('/')}-loop"
      end
    end
  end
end
