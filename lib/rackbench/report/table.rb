# frozen_string_literal: true

require_relative "dataset"
require_relative "number_format"
require_relative "warmup_curve"
require_relative "../stats/interval"
require_relative "resource_table"
require_relative "verdict_notes"
require_relative "verdict_grid"
require_relative "validity_notes"
require_relative "quiet_notes"
require_relative "protocol_note"
require_relative "split_table"
require_relative "failures"
require_relative "decision_text"
require_relative "answer_text"
require_relative "columns"
require_relative "boot_variance_note"
require_relative "boots_note"

module Rackbench
  module Report
    # The terminal table: the answer first (AnswerText), then one table per
    # endpoint, setups as rows, load levels as columns (c= concurrency, r=
    # offered rate, each by its trials' loop); each cell "req/s  mean/p99".
    # Errors are flagged with "!", foreign load with "~" (QuietNotes), cells
    # that are not valid with "?" (ValidityNotes); what limited each cell is a
    # grid of labels (VerdictGrid), with the full reasons (VerdictNotes) when
    # asked (why: rackbench report --why); failed setups and endpoints are
    # listed under the tables (Failures). Renders a run's Dataset, as every
    # other format does: its cells, its decisions (the run's margin), its
    # setups and meta.json's config.
    class Table
      # Above this coefficient of variation of req/s across repetitions a
      # cell is called noisy.
      NOISY_CV = 0.10
      LOOP_NOTE = {
        false => "Latency is closed-loop (measured from each request's send; hides coordinated omission). " \
                 "Cells: req/s  mean/p99 latency; ! = errors.",
        true => "Latency is open-loop (measured from each request's planned send at the offered rate r: " \
                "free of coordinated omission). Cells: achieved req/s  mean/p99 latency; ! = errors."
      }.freeze

      # dataset: the run (Dataset: its path is named where the table points
      # to each cell's reasons; meta.json's config says what a boot and a
      # take cost, BootVarianceNote); why: print each cell's full reasons
      # after the grid of labels; split: print where a request's time went
      # (SplitTable) also without why; nil: when the run asked the probe
      # (a user's app run with --probe).
      def initialize(dataset, io: $stdout, why: false, split: nil)
        @data = dataset
        @config = dataset.meta["config"]
        @setups = dataset.setup_rows
        @why = why
        @split = split.nil? ? dataset.meta.dig("config", "probe") == true : split
        @run_dir = dataset.path
        @trials = dataset.trials
        @cells = dataset.cells
        @failures = Failures.new(@setups, @trials) # failed setups (their latest attempt) and endpoints
        @io = io
      end

      def render
        AnswerText.render(@trials, decisions, @io, cells: @cells, attributions: AnswerText.attributions(@data)) if @cells.setups.size > 1
        @cells.endpoints.each { |endpoint| render_endpoint(endpoint) }
        ResourceTable.new(@trials, io: @io).render(method(:print_rows))
        VerdictGrid.new(@trials, io: @io, run_dir: @run_dir, why: @why, cells: @cells).render
        VerdictNotes.new(@trials, io: @io).render if @why
        SplitTable.new(@trials, io: @io).render if @why || @split
        ValidityNotes.lines(@cells, why: @why ? nil : "rackbench report #{@run_dir || 'RUN_DIR'} --why").each { |l| @io.puts l }
        WarmupCurve.render(@trials, io: @io)
        render_failures
        return if @cells.cells.empty?

        @cells.loops.each { |open| @io.puts LOOP_NOTE.fetch(open) }
        ProtocolNote.line(@trials)&.then { |l| @io.puts l }
        QuietNotes.lines(@trials).each { |line| @io.puts line }
        return unless @cells.cells.any? { |c| c.repetitions > 1 }

        @io.puts "With repetitions: median req/s [#{Stats::Interval.description}] and its coefficient of variation."
        DecisionText.render(decisions, @io, setups: @cells.setups.size, why: @why, run_dir: @run_dir)
        BootVarianceNote.lines(@cells, setups: @setups, config: @config).each { |l| @io.puts l }
        BootsNote.line(@setups || [], @trials)&.then { |l| @io.puts l }
        noisy = @cells.cells.select { |c| c.rps.cv.to_f > NOISY_CV }
        return if noisy.empty?

        @io.puts "warning: #{noisy.size} cell(s) vary by more than #{(NOISY_CV * 100).round}% between repetitions " \
                 "(noisy): raise --duration or --repeat, or quiet the machine (rackbench doctor)"
      end

      private

      def decisions = @data.decisions

      def render_endpoint(endpoint)
        levels = @cells.levels(endpoint)
        rows = @cells.setups(endpoint).map do |setup|
          [setup] + levels.map { |c| cell_text(@cells[endpoint, setup, c]) }
        end
        header = [endpoint.to_s] + levels.map { |c| @cells.level_label(c) }
        @io.puts
        print_rows([header] + rows)
      end

      def cell_text(cell)
        return "-" unless cell

        rps = NumberFormat.rps(cell.rps.median)
        interval = Stats::Interval.of(cell.records.map { |t| t["rps"] }, floor: 0)
        if interval
          cv = cell.rps.cv ? " cv #{format('%.0f', cell.rps.cv * 100)}%" : ""
          rps += " [#{NumberFormat.rps(interval.low)}-#{NumberFormat.rps(interval.high)}]#{cv}"
        end
        lat = "#{NumberFormat.ms(cell.latency('mean').median)}/#{NumberFormat.ms(cell.latency('p99').median)}"
        flag = cell.errors.positive? ? " !#{cell.errors}" : ""
        flag += ValidityNotes.flag(cell)
        flag += QuietNotes.flag(cell.records)
        "#{rps}  #{lat}#{flag}"
      end

      def print_rows(rows)
        Columns.print(@io, rows)
      end

      def render_failures
        @failures.lines.each { |line| @io.puts line }
      end
    end
  end
end
