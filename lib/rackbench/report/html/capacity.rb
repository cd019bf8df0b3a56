# frozen_string_literal: true

require_relative "escape"
require_relative "chart_data"
require_relative "../number_format"
require_relative "../../stats/summary"
require_relative "../../stats/slo"
require_relative "../../stats/validity"

module Rackbench
  module Report
    class Html
      # The curve of `rackbench capacity`, from capacity.jsonl joined with
      # trials.jsonl: per endpoint and load loop, p99 latency against the load
      # level (open loop: offered req/s; closed loop: connections), one series
      # per setup, each measured level a point that meets (filled circle) or
      # fails (cross) the SLO, the SLO's p99 objective as a line, and under each
      # chart the knee per setup in the terminal's words. A level measured more
      # than once (p99 near the objective) is drawn at the median of its trials
      # with their range as whiskers; its verdict is the search's (majority).
      class Capacity
        include Escape

        KINDS = {
          "open" => { title: "Open loop: p99 vs offered rate", axis: "offered rate (req/s)" },
          "closed" => { title: "Closed loop: p99 vs concurrency", axis: "concurrency (open connections)" }
        }.freeze

        def initialize(dataset, rows)
          @data = dataset
          @levels = rows.select do |r|
            r["type"] == "level" && KINDS.key?(r["kind"]) && r["level"].is_a?(Numeric) && r["setup"] && r["endpoint"]
          end
          @knees = rows.select { |r| r["type"] == "knee" && r["setup"] && r["endpoint"] }
        end

        def any?
          !(@levels.empty? && @knees.empty?)
        end

        # The run's trials by key, as Hashes, made when a level or a knee is
        # drawn (a run that is no capacity search never holds them all).
        def trials_by_key
          @trials_by_key ||= @data.trials.each_with_object({}) { |t, by_key| by_key[t["key"]] = t.to_h }
        end

        def endpoints
          (@levels + @knees).map { |r| r["endpoint"] }.uniq
        end

        def setups
          (@levels + @knees).map { |r| r["setup"] }.uniq
        end

        def self.chart_id(index, kind)
          "capacity-#{index}-#{kind}"
        end

        # The SLO the knees of this endpoint were judged by (the run's, failing that).
        def slo(endpoint = nil)
          knee = @knees.find { |k| (endpoint.nil? || k["endpoint"] == endpoint) && k["slo"].is_a?(Hash) }
          slo = knee ? knee["slo"] : @data.meta["slo"]
          slo.is_a?(Hash) ? slo : {}
        end

        def describe_slo(endpoint = nil)
          s = slo(endpoint)
          parts = []
          parts << "p99 ≤ #{NumberFormat.ms(s['p99_ms'])}" if s["p99_ms"].is_a?(Numeric)
          parts << "errors ≤ #{format('%g', s['error_rate'] * 100)}% of responses" if s["error_rate"].is_a?(Numeric)
          parts << "no failed health check" if s["health_checks"]
          parts.empty? ? "not recorded" : parts.join(", ")
        end

        def kinds(endpoint)
          present = @levels.select { |l| l["endpoint"] == endpoint }.map { |l| l["kind"] }
          KINDS.keys & present
        end

        def charts
          endpoints.each_with_index.flat_map { |e, i| kinds(e).map { |k| chart(e, i, k) } }
        end

        # The section's content for one endpoint; figure(id, caption) draws a chart's frame.
        def content(endpoint, index, &figure)
          loops = kinds(endpoint).map do |kind|
            "<div class=\"capacity-loop\"><h3>#{h(KINDS[kind][:title])}</h3>" \
              "#{figure.call(Capacity.chart_id(index, kind), caption(kind))}#{sentences(endpoint, kind)}</div>"
          end
          unmeasured = loops.empty? ? "<p>No level of this search was measured.</p>" : ""
          "<p class=\"note\">SLO: #{h(describe_slo(endpoint))}. Each point is one load level the search measured; " \
            "a level whose p99 came near the objective was measured up to 3 times (point: median, whiskers: range; " \
            "verdict: majority).</p>#{unmeasured}<div class=\"grid\">#{loops.join}</div>"
        end

        private

        def caption(kind)
          "p99 latency (ms) vs #{KINDS[kind][:axis]}; ● meets the SLO, × fails it; dashed line: the p99 objective"
        end

        def setup_color(setup)
          ChartData.color_for(setup, setups)
        end

        def chart(endpoint, index, kind)
          datasets = setups.filter_map do |setup|
            rows = @levels.select { |l| l["endpoint"] == endpoint && l["setup"] == setup && l["kind"] == kind }
            next if rows.empty?

            points = rows.filter_map { |row| point(row) }.sort_by { |p| p[:x] }
            { label: setup, color: setup_color(setup), dash: false, points: points }
          end
          objective = slo(endpoint)["p99_ms"]
          objective = nil unless objective.is_a?(Numeric) && objective.positive?
          ys = datasets.flat_map { |d| d[:points].map { |p| p[:y] } } + [objective].compact
          xs = datasets.flat_map { |d| d[:points].map { |p| p[:x] } }
          y_log = spread?(ys)
          x_log = spread?(xs)
          { id: Capacity.chart_id(index, kind), type: "line", xy: true, loop: kind, labels: [], datasets: datasets,
            unit: "ms", log: y_log, log_min: y_log ? 10.0**Math.log10(ys.select(&:positive?).min).floor : nil,
            y_max: y_max(ys, objective, y_log), x_title: KINDS[kind][:axis], x_log: x_log, x_ticks: x_log ? xs.uniq.sort : nil, **x_bounds(xs, x_log),
            slo: objective && { y: objective, label: "SLO p99 #{NumberFormat.ms(objective)}" },
            stacked: false, horizontal: false }
        end

        # One measured level: its trials' median p99 (range when several) and req/s.
        def point(row)
          trials = Array(row["trials"]).filter_map { |key| trials_by_key[key] }
          p99s = trials.filter_map { |t| num(t.dig("latency_ms", "p99")) }
          return nil if p99s.empty?

          p99 = Stats::Summary.of(p99s)
          rps = Stats::Summary.of(trials.filter_map { |t| num(t["rps"]) })
          { x: num(row["level"]), y: num(p99.median), n: p99s.size, lo: p99s.size > 1 ? p99s.min : nil,
            hi: p99s.size > 1 ? p99s.max : nil, kind: "range", pass: row["pass"] == true,
            reason: row["reason"].to_s, rps: rps.n.zero? ? nil : num(rps.median),
            errors: trials.sum { |t| t["error_total"].to_i }, trials: trials.size > 1 ? verdicts(row, trials) : nil }
        end

        # A level measured more than once: each trial's p99 and verdict, judged
        # again by the recorded SLO, so a point's tooltip shows how the majority went.
        def verdicts(row, trials)
          s = slo(row["endpoint"])
          judge = s["p99_ms"].is_a?(Numeric) &&
                  Stats::Slo.new(p99_ms: s["p99_ms"], error_rate: s["error_rate"].is_a?(Numeric) ? s["error_rate"] : 0.001,
                                  health: s["health_checks"] == true)
          trials.map do |t|
            verdict = judge && judge.judge(t)
            { p99: num(t.dig("latency_ms", "p99")), pass: verdict&.pass, reason: verdict&.reason }
          end
        end

        # Headroom over the highest point and the objective's label (a log axis
        # ends at its highest value, a linear one at the tick above).
        def y_max(ys, objective, log)
          return nil if ys.empty?

          (log ? [ys.max * 1.3, objective.to_f * 1.5].max : [ys.max, objective.to_f * 1.12].max).round(4)
        end

        def spread?(values)
          positive = values.select { |v| v.is_a?(Numeric) && v.positive? }
          positive.size > 1 && positive.max / positive.min > ChartData::LOG_SPREAD
        end

        # On a log axis (ticks at the measured levels), room either side of the
        # first and last level so their points show whole; a linear axis gets
        # that room from report.js (grace) and rounds its ends to its ticks.
        def x_bounds(xs, log)
          return {} if xs.empty? || !log

          min, max = xs.minmax
          { x_min: (min / 1.3).round(4), x_max: (max * 1.3).round(4) }
        end

        def sentences(endpoint, kind)
          items = setups.filter_map do |setup|
            knee = @knees.find { |k| k["endpoint"] == endpoint && k["setup"] == setup }
            result = knee && knee[kind]
            if result.is_a?(Hash)
              sentence(setup, knee, kind, result)
            elsif @levels.any? { |l| l["endpoint"] == endpoint && l["setup"] == setup && l["kind"] == kind }
              count = @levels.count { |l| l["endpoint"] == endpoint && l["setup"] == setup && l["kind"] == kind }
              "<li><b>#{h(setup)}</b>: the search did not finish <span class=\"muted\">[#{count} levels measured]</span></li>"
            end
          end
          items.empty? ? "" : "<ul class=\"knees\">#{items.join}</ul>"
        end

        # As the terminal's CapacityText: "sustains 190 req/s within p99 500 ms (...); at 200 req/s: ...",
        # and a knee whose trials are not valid "not a capacity: ... but is not valid: why".
        def sentence(setup, knee, kind, result)
          unit = kind == "open" ? ->(v) { rate(v) } : ->(v) { "#{v} connections" }
          objective = "p99 #{NumberFormat.ms(knee.dig('slo', 'p99_ms') || slo(knee['endpoint'])['p99_ms'])}"
          if result["pass"]
            got = result["pass_record"].is_a?(Hash) ? result["pass_record"] : {}
            figures = "(#{h(NumberFormat.rps(got['rps']))} req/s, p99 #{h(NumberFormat.ms(got.dig('latency_ms', 'p99')))})"
            invalid = knee_validity(knee, kind, result)&.note&.sub(/\Anot valid(?: \([^)]*\))?: /, "")
            text = if invalid
                     "not a capacity: #{h(unit.call(result['pass']))} met #{h(objective)} #{figures} but is not valid: #{h(invalid)}"
                   else
                     "sustains <b>#{h(unit.call(result['pass']))}</b> within #{h(objective)} #{figures}"
                   end
            text += "; at #{h(unit.call(result['fail']))}: #{h(result['fail_reason'])}" if result["fail"]
            text += "; #{h(result['bound_reason'])}" if result["bound"]
            text += "; the search's upper limit was reached" unless result["fail"] || result["bound"]
          elsif result["bound"] && !result["fail"]
            text = "no level could be judged against #{h(objective)}: #{h(result['bound_reason'])}"
          else
            text = "no level met #{h(objective)}; at #{h(unit.call(result['fail']))}: #{h(result['fail_reason'])}"
          end
          text += " <span class=\"muted\">[#{h(result['levels_measured'])} levels]</span>"
          text += sustained(knee["sustain"]) if kind == "open" && knee["sustain"].is_a?(Hash)
          "<li><b>#{h(setup)}</b> #{text}</li>"
        end

        # Stats::Validity of the trials at the knee's passing level (nil when none is stored).
        def knee_validity(knee, kind, result)
          row = @levels.find do |l|
            l["setup"] == knee["setup"] && l["endpoint"] == knee["endpoint"] && l["kind"] == kind && l["level"] == result["pass"]
          end
          trials = (row ? Array(row["trials"]) : [result.dig("pass_record", "key")]).filter_map { |k| trials_by_key[k] }
          trials.empty? ? nil : Stats::Validity.cell(trials)
        end

        def sustained(s)
          verdict = s["holds"] ? "holds" : "<span class=\"bad\">does not hold</span>"
          "<br><span class=\"sustain\">sustained #{h(rate(s['rate']))} for #{h(s['seconds'].to_i)} s: #{verdict} (#{h(s['reason'])})</span>"
        end

        def rate(value)
          value.is_a?(Numeric) ? "#{format('%g', value)} req/s" : "-"
        end

        def num(value)
          value.is_a?(Numeric) && value.to_f.finite? ? value.to_f.round(4) : nil
        end
      end
    end
  end
end
