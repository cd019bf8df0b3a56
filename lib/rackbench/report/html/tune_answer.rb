# frozen_string_literal: true

require_relative "escape"
require_relative "../streams"
require_relative "marks"
require_relative "../number_format"
require_relative "../tune_text"
require_relative "../answer_text"
require_relative "../../stats/cells"
require_relative "../../store/tune_journal"

module Rackbench
  module Report
    class Html
      # A tune run's page, from recommendation.json, tune.jsonl and
      # trials.jsonl: the answer first (the recommended setup and why, the
      # SLO, the rate it holds in its own unit, "r=N req/s offered", its
      # footprint, the runner-up and the decision between them, the config
      # file's path and the command to start it), then the throughput-vs-
      # memory Pareto table, then each round as the terminal printed it
      # (TuneText). The recommended setup and the runner-up carry "~" when
      # their trials at that rate ran under foreign load and "?" when those
      # trials are not valid (Stats::Validity). Tune's trials are levels its
      # search chose (closed-loop probes, open-loop rates): the ordinary
      # setups x levels sections would be mostly blank, and are left out.
      class TuneAnswer
        include Escape
        include Marks

        def initialize(dataset)
          @data = dataset
          @dir = dataset.path.to_s
          @rec = Store::TuneJournal.recommendation(@dir)
        end

        def facts
          return ["tune", "no recommendation.json yet"] unless @rec

          slo = @rec["slo"].is_a?(Hash) ? @rec["slo"] : {}
          ["tune", @rec["endpoint"].to_s, "SLO p99 ≤ #{NumberFormat.ms(slo['p99_ms'])}",
           "#{Array(@rec['pareto']).size} setups probed", "#{@data.trials.size} trials"]
        end

        def answer
          return "<p>No recommendation.json in this run directory: tune did not finish (see tune.jsonl).</p>" unless @rec
          return unmet unless @rec["setup"]

          foreign = [@rec, @rec["runner_up"]].compact.any? { |r| (c = cell_for(r)) && QuietNotes.foreign_cell?(c) }
          "<p class=\"headline\"><b>#{h(@rec['setup'])}</b>#{marks_for(@rec)} — #{h(@rec['reason'].to_s.sub(/\A#{Regexp.escape(@rec['setup'])} — /, ''))}</p>" \
            "#{definition_list(rows)}#{foreign ? "<p class=\"note\">#{h(AnswerText::FOREIGN)}</p>" : ''}"
        end

        def pareto
          rows = Array(@rec&.dig("pareto"))
          return nil if rows.empty?

          body = rows.map do |r|
            cls = { "recommended" => " class=\"recommended\"", "runner-up" => " class=\"runner-up\"" }.fetch(r["status"], "")
            "<tr#{cls}><td>#{r['pareto'] ? '★' : ''}</td><th scope=\"row\">#{h(r['setup'])}</th><td>#{h(NumberFormat.rps(r['rps']))}</td>" \
              "<td>#{r['knee_rps'] ? "r=#{h(NumberFormat.rps(r['knee_rps']))}" : '–'}</td>" \
              "<td>#{r['footprint_mb'] ? h(format('%.1f', r['footprint_mb'])) : '–'}</td><td class=\"status\">#{h(r['status'])}</td></tr>"
          end
          "<p class=\"note\">★ = on the Pareto front: no other setup has both more req/s and less PSS. req/s: the " \
            "round-1 closed-loop probe (saturated), measured alike for every setup; knee: the highest offered rate " \
            "(open loop) within the SLO.</p><table class=\"pareto\"><thead><tr><th></th><th scope=\"col\">setup</th>" \
            "<th scope=\"col\">req/s (probe)</th><th scope=\"col\">knee (req/s offered)</th><th scope=\"col\">PSS MiB</th>" \
            "<th scope=\"col\">status</th></tr></thead><tbody>#{body.join}</tbody></table>"
        end

        # Each round's decisions, as the terminal printed them.
        def rounds
          text = Streams.string { |io| TuneText.new(@dir, io: io).render }.strip
          text.empty? ? nil : "<details><summary>Each round's decisions (the terminal's account)</summary><pre>#{h(text)}</pre></details>"
        rescue SystemCallError
          nil
        end

        def method_list
          m = @data.meta["tune"].is_a?(Hash) ? @data.meta["tune"] : {}
          rec = @rec || {}
          rows = [["Method", rec["method"] || m["method"]], ["Evidence", rec["evidence_note"]],
                  ["Memory budget", m["memory_budget_mb"] && "#{m['memory_budget_mb']} MiB"],
                  ["Time", rec["elapsed_s"] && "#{rec['elapsed_s']} s of a #{rec['time_budget_s'].to_f.round} s budget"],
                  ["Probe noise band", rec["noise_band"] && "#{(rec['noise_band'] * 100).round}%"], ["Seed", rec["seed"]],
                  ["Latency", "open loop: from each request's planned send; closed-loop probes: from each request's send " \
                              "(hides coordinated omission)"]]
          definition_list(rows.reject { |_, v| v.nil? || v.to_s.empty? })
        end

        private

        def unmet
          best = @rec["best_throughput"]
          more = best ? "<p>The most throughput regardless of the SLO: <b>#{h(best['setup'])}</b> " \
                        "(#{h(NumberFormat.rps(best['probe_rps']))} req/s, closed-loop probe).</p>" : ""
          "<p class=\"headline\">No recommendation: #{h(@rec['reason'])}.</p>#{more}"
        end

        def rows
          slo = @rec["slo"].is_a?(Hash) ? @rec["slo"] : {}
          [["SLO", "p99 ≤ #{NumberFormat.ms(slo['p99_ms'])}, errors ≤ #{format('%g', slo['error_rate'].to_f * 100)}% of responses"],
           ["Holds", holds(@rec)], ["Footprint", footprint(@rec)], ["Runner-up", runner_up],
           ["Config", config], ["Evidence", "#{@rec['evidence_note']}#{@rec['stopped'] ? " (stopped early: #{@rec['stopped']})" : ''}"],
           ["Edges", @rec.dig("edges", "note")]].reject { |_, v| v.nil? || v.to_s.empty? }
        end

        # The rate the setup is recommended at, in its unit: an offered rate
        # (open loop) for a confirmation or a knee, achieved req/s for a probe.
        def holds(row)
          confirm = row["confirmation"]
          if confirm.is_a?(Hash) && confirm["rate"]
            "r=#{NumberFormat.rps(confirm['rate'])} req/s offered, over #{confirm['passes']}/#{confirm['n']} paired rounds " \
              "of #{confirm['window_s']} s (p99 median #{NumberFormat.ms(confirm.dig('p99_ms', 'median'))})"
          elsif row["knee_rps"]
            "r=#{NumberFormat.rps(row['knee_rps'])} req/s offered (knee search; the next rate tried, " \
              "#{row['knee_fail'] ? "r=#{NumberFormat.rps(row['knee_fail'])}" : 'none'}, failed)"
          elsif row["probe_rps"]
            "#{NumberFormat.rps(row['probe_rps'])} req/s saturated (closed-loop probe only)"
          end
        end

        def footprint(row)
          return nil unless row["footprint_mb"]

          "#{format('%.1f', row['footprint_mb'])} MiB PSS, #{row['processes']} process#{row['processes'] == 1 ? '' : 'es'}"
        end

        def runner_up
          r = @rec["runner_up"] or return "none (one setup measured)"
          text = "<b>#{h(r['setup'])}</b>#{marks_for(r)}: #{h(holds(r))}"
          decision = @rec["decision"]
          text += if decision
                    "<br>#{h(decision['text'])}"
                  else
                    "<br>not confirmed in paired rounds: #{h(r['not_confirmed'])}"
                  end
          Raw.new(text)
        end

        def config
          files = Array(@rec["config_files"])
          start = "start with: <code>#{h(@rec['start_command'])}</code>"
          return Raw.new("no config file for #{h(@rec['server'])}; #{start}") if files.empty?

          Raw.new("#{files.map { |f| "<code>#{h(File.join(@dir, f))}</code>" }.join(', ')} (#{start})")
        end

        # "~" and "?" for a setup, judged on its trials at the rate it holds
        # (the confirmation's or the knee's), or on its probes.
        def marks_for(row)
          cell = cell_for(row) or return ""
          marks(cell)
        end

        def cell_for(row)
          rate = row.dig("confirmation", "rate") || row["knee_rps"]
          mine = @data.trials.select { |t| t["setup"] == row["setup"] }
          trials = rate ? mine.select { |t| t["rate"].is_a?(Numeric) && (t["rate"] - rate).abs < 1e-6 } : mine.reject { |t| t["rate"] }
          return nil if trials.empty?

          Stats::Cells::Cell.new(endpoint: @rec["endpoint"], setup: row["setup"], level: rate, trials: trials)
        end

        # HTML already escaped (a definition's value that carries markup).
        Raw = Struct.new(:html) do
          def to_s = html
        end

        def definition_list(rows)
          "<dl>#{rows.map { |k, v| "<dt>#{h(k)}</dt><dd>#{v.is_a?(Raw) ? v.html : h(v)}</dd>" }.join}</dl>"
        end
      end
    end
  end
end
