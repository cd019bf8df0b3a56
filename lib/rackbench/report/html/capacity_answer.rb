# frozen_string_literal: true

require_relative "escape"
require_relative "marks"
require_relative "../number_format"
require_relative "../answer_text"
require_relative "../../stats/cells"

module Rackbench
  module Report
    class Html
      # The headline of a capacity run, first under the header: per endpoint
      # and setup, the knee of each loop in its own unit, a concurrency as
      # "c=N connections" and a rate as "r=N req/s offered", with what it
      # achieved there (req/s, p99), under the SLO it was judged by. A knee
      # whose trials ran under foreign load carries "~", one whose trials are
      # not valid (Stats::Validity) "?", each with its reason; a knee not
      # valid is said as no capacity, never in bold.
      class CapacityAnswer
        include Escape
        include Marks

        LOOPS = { "closed" => "closed loop", "open" => "open loop" }.freeze

        # capacity: the Html::Capacity of the run (its knees, levels, SLO).
        def initialize(dataset, capacity, rows)
          @data = dataset
          @capacity = capacity
          @knees = rows.select { |r| r["type"] == "knee" && r["setup"] && r["endpoint"] }
          @levels = rows.select { |r| r["type"] == "level" }
          @trials = dataset.trials.to_h { |t| [t["key"], t] }
        end

        def render
          return "" if @knees.empty?

          @notes = []
          @foreign = false
          blocks = @knees.group_by { |k| k["endpoint"] }.map do |endpoint, knees|
            "<p class=\"answer-head\"><code>#{h(endpoint)}</code> within the SLO #{h(@capacity.describe_slo(endpoint))}:</p>" \
              "<ul class=\"answer\">#{knees.map { |k| item(k) }.join}</ul>"
          end
          notes = @notes.map { |n| "<p class=\"note\">? #{h(n)}</p>" }.join
          notes += "<p class=\"note\">#{h(AnswerText::FOREIGN)}</p>" if @foreign
          "#{blocks.join}<p class=\"note\">The highest load each setup sustained within the SLO: c= connections " \
            "(closed loop), r= offered req/s (open loop, latency from each request's planned send).</p>#{notes}"
        end

        private

        def item(knee)
          parts = LOOPS.filter_map { |kind, name| knee[kind].is_a?(Hash) && "#{name} #{loop_text(knee, kind, knee[kind])}" }
          "<li><b>#{h(knee['setup'])}</b>: #{parts.empty? ? 'no loop searched' : parts.join('; ')}</li>"
        end

        def loop_text(knee, kind, result)
          return "no level could be judged (#{h(result['bound_reason'])})" if !result["pass"] && result["bound"] && !result["fail"]
          return "no level met it (at #{h(level(kind, result['fail']))}: #{h(result['fail_reason'])})" unless result["pass"]

          got = result["pass_record"].is_a?(Hash) ? result["pass_record"] : {}
          cell = pass_cell(knee, kind, result)
          remember(knee, kind, result, cell) if cell
          figures = "(#{h(NumberFormat.rps(got['rps']))} req/s, p99 #{h(NumberFormat.ms(got.dig('latency_ms', 'p99')))})" \
                    "#{cell ? marks(cell) : ''}"
          # Its reason is in the notes under the answer (remember).
          return "not a capacity: #{h(level(kind, result['pass']))} met the SLO #{figures} but is not valid" if cell && !ValidityNotes.check(cell).valid?

          "<b>#{h(level(kind, result['pass']))}</b> #{figures}#{upper_note(result)}"
        end

        def upper_note(result)
          return " <span class=\"muted\">(#{h(result['bound_reason'])})</span>" if result["bound"]

          result["fail"] ? "" : ' <span class="muted">(the search\'s upper limit)</span>'
        end

        # What the notes under the answer say: why a knee is not valid, and what "~" means.
        def remember(knee, kind, result, cell)
          @foreign ||= QuietNotes.foreign_cell?(cell)
          note = ValidityNotes.check(cell).note or return
          @notes << "#{knee['setup']} #{LOOPS[kind]} at #{level(kind, result['pass'])}: #{note}"
        end

        def level(kind, value)
          return "-" unless value.is_a?(Numeric)

          kind == "open" ? "r=#{format('%g', value)} req/s offered" : "c=#{value} connections"
        end

        # The trials measured at the knee's passing level (several when it came near the objective).
        def pass_cell(knee, kind, result)
          row = @levels.find do |l|
            l["setup"] == knee["setup"] && l["endpoint"] == knee["endpoint"] && l["kind"] == kind && l["level"] == result["pass"]
          end
          keys = row ? Array(row["trials"]) : [result.dig("pass_record", "key")]
          trials = keys.filter_map { |k| @trials[k] }
          trials.empty? ? nil : Stats::Cells::Cell.new(endpoint: knee["endpoint"], setup: knee["setup"], level: result["pass"], trials: trials)
        end
      end
    end
  end
end
