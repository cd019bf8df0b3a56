# frozen_string_literal: true

require_relative "number_format"
require_relative "../stats/verdict"
require_relative "../stats/cells"
require_relative "quiet_notes"
require_relative "validity_notes"

module Rackbench
  module Report
    # The capacity search on the terminal, from capacity.jsonl: each knee in
    # one sentence, then the measured curve (every level, with its verdict).
    # Given the run's trials, each knee also says what stopped it: the
    # Stats::Verdict of the first failing level's trial; and a knee whose
    # trials ran under foreign load is marked "~", one whose trials are not
    # valid (Stats::Validity) "?" with its reason and the -d it needs, and
    # is said as no capacity ("not a capacity: ... but is not valid").
    class CapacityText
      def initialize(rows, io:, trials: [])
        @all = trials
        @trials = trials.to_h { |t| [t["key"], t] }
        @knees = rows.select { |r| r["type"] == "knee" }
        @levels = rows.select { |r| r["type"] == "level" }
        @io = io
      end

      def render
        @knees.each do |k|
          @io.puts
          @io.puts "#{k['setup']} on #{k['endpoint']}:"
          %w[open closed].each { |loop| sentence(k, k[loop]) if k[loop] }
          @io.puts "  sustained #{fmt_rate(k.dig('sustain', 'rate'))} for #{k.dig('sustain', 'seconds').to_i} s: " \
                   "#{k.dig('sustain', 'holds') ? 'holds' : 'does not hold'} (#{k.dig('sustain', 'reason')})" if k["sustain"]
          curve(k)
        end
        QuietNotes.lines(@all).grep(/\A~/).each { |l| @io.puts l } if @marked
      end

      private

      def sentence(knee, result)
        unit = result["loop"] == "open" ? ->(v) { fmt_rate(v) } : ->(v) { "#{v} connections" }
        slo = "p99 #{NumberFormat.ms(knee.dig('slo', 'p99_ms'))}"
        head = "  #{result['loop']} loop: "
        if result["pass"]
          got = result["pass_record"] || {}
          figures = "(#{NumberFormat.rps(got['rps'])} req/s, p99 #{NumberFormat.ms(got.dig('latency_ms', 'p99'))})"
          cell = pass_cell(knee, result)
          # A knee whose trials are not valid is no capacity: said as such.
          text = if cell && !ValidityNotes.check(cell).valid?
                   "not a capacity: #{unit.call(result['pass'])} met #{slo} #{figures}#{marks(cell)} but is not valid"
                 else
                   "sustains #{unit.call(result['pass'])} within #{slo} #{figures}#{marks(cell)}"
                 end
          text += "; at #{unit.call(result['fail'])}: #{result['fail_reason']}" if result["fail"]
          text += "; #{result['bound_reason']}" if result["bound"]
          text += "; the search's upper limit was reached" unless result["fail"] || result["bound"]
        elsif result["bound"] && !result["fail"]
          text = "no level could be judged against #{slo}: #{result['bound_reason']}"
        else
          text = "no level met #{slo}; at #{unit.call(result['fail'])}: #{result['fail_reason']}"
        end
        @io.puts head + text + " [#{result['levels_measured']} levels]"
        note = cell && ValidityNotes.check(cell).note
        @io.puts "    ? #{note}" if note
        stopped = @trials[result.dig("fail_record", "key")]
        @io.puts "    what stopped it at #{unit.call(result['fail'])}: #{Stats::Verdict.for(stopped).text}" if stopped
      end

      # The trials of the knee's passing level (several when it came near the objective).
      def pass_cell(knee, result)
        row = @levels.find do |l|
          l["setup"] == knee["setup"] && l["endpoint"] == knee["endpoint"] && l["kind"] == result["loop"] && l["level"] == result["pass"]
        end
        trials = (row ? Array(row["trials"]) : [result.dig("pass_record", "key")]).filter_map { |k| @trials[k] }
        trials.empty? ? nil : Stats::Cells::Cell.new(endpoint: knee["endpoint"], setup: knee["setup"], level: result["pass"], trials: trials)
      end

      def marks(cell)
        return "" unless cell

        text = ValidityNotes.flag(cell) + QuietNotes.flag(cell.trials)
        @marked ||= QuietNotes.foreign_cell?(cell)
        text
      end

      def curve(knee)
        rows = @levels.select { |l| l["setup"] == knee["setup"] && l["endpoint"] == knee["endpoint"] }
        rows.group_by { |l| l["kind"] }.each do |kind, levels|
          points = levels.sort_by { |l| l["level"] }.map { |l| "#{kind == 'open' ? fmt_rate(l['level']) : "c=#{l['level']}"} #{curve_word(l)}" }
          @io.puts "    #{kind} curve: #{points.join(', ')}"
        end
      end

      # A level the load generator could not hold is not the server's FAIL.
      def curve_word(level)
        return "ok" if level["pass"]

        level["client"] ? "client behind" : "FAIL"
      end

      def fmt_rate(value)
        value ? "#{format('%g', value)} req/s" : "-"
      end
    end
  end
end
