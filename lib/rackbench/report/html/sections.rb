# frozen_string_literal: true

require_relative "escape"
require_relative "cell_table"
require_relative "../number_format"
require_relative "../quiet_notes"
require_relative "../protocol_note"
require_relative "../../stats/decision"
require_relative "../../stats/slo"
require_relative "../../stats/decisions"
require_relative "../../stats/metrics"

module Rackbench
  module Report
    class Html
      # The page's text parts: exact-number tables, warnings, method,
      # environment and setups. Every value from the run directory goes
      # through Escape.h.
      class Sections
        include Escape
        include CellTable

        # capacity: the run is a capacity search (see Html): its trials are
        # levels a search chose, not cells with repetitions.
        def initialize(dataset, capacity: false)
          @data = dataset
          @capacity = capacity
        end

        # Per endpoint: setups x levels, "median req/s [95% CI] · mean / p99".
        def numbers_table(endpoint)
          cell_table(endpoint, "numbers") { |cell| number_cell(cell) }
        end

        def warnings
          (+"").tap { |out| each_warnings_piece { |piece| out << piece } }
        end

        # The warnings a list item at a time (a huge run's cells not valid
        # are 100,000 items: never one String).
        def each_warnings_piece
          any = false
          warning_items do |item|
            yield any ? item : "<ul class=\"warnings\">#{item}"
            any = true
          end
          yield any ? "</ul>" : "<p class=\"ok\">No failed setups and no request errors.</p>"
        end

        def warning_items(&item)
          @data.failed_setups.each do |f|
            tail = Array(f["log_tail"]).join("\n")
            yield "<li><strong>#{h(f['setup'])}</strong> failed (repetition #{h(f['repetition'])}): #{h(f['reason'])}" \
                  "#{tail.empty? ? '' : "<pre>#{h(tail)}</pre>"}</li>"
          end
          # In a capacity search, errors past the knee are what the search looks
          # for (each level's verdict says so) and every level runs once.
          unless @capacity
            @data.error_cells.each do |c|
              yield "<li>#{h(c.setup)} on #{h(c.endpoint)} at #{h(@data.cells.level_label(c.level))}: " \
                    "#{h(NumberFormat.count(c.errors, 'error'))} in #{h(NumberFormat.count(c.requests, 'request'))}</li>"
            end
          end
          @data.notes.each { |note, cells| yield "<li>#{h(cells.join(', '))}: #{h(note)}</li>" }
          trust_items(&item)
          yield repetitions_note if repetitions_note && !@capacity
        end

        def method_list
          return capacity_method_list if @capacity

          min, max = @data.repetitions
          plan = @data.meta["plan"].is_a?(Hash) ? @data.meta["plan"] : {}
          loops = @data.loops.map { |l| l == "closed" ? "closed loop (latency measured from each request's send; hides coordinated omission)" : "#{l} loop" }
          rows = [["Load loop", loops.join("; ")], ["Repetitions per cell", min == max ? min : "#{min}–#{max}"],
                  ["Point shown", "median of the repetitions"], ["Interval", @data.ci_method],
                  ["Comparisons (rackbench compare)", "#{Stats::Decision::UNPAIRED}: faster/slower, equivalent within the margin, or undecided; #{Stats::Decisions::FAMILIES}"],
                  ["Duration / warm-up per trial", [plan["duration_s"], plan["warmup_s"]].map { |v| seconds_or_word(v) }.join(" / ")],
                  ["Load engine", [@data.meta.dig("engine", "name"), @data.meta.dig("engine", "version")].compact.join(" ")]]
          definition_list(rows)
        end

        # 2 -> "2 s"; a warm-up "steady" stays a word; unknown -> "?".
        def seconds_or_word(value)
          return "?" if value.nil?

          value.is_a?(Numeric) ? "#{value} s" : value.to_s
        end

        def environment
          m = @data.meta
          servers = m["servers"].is_a?(Hash) ? m["servers"].map { |k, v| "#{k} #{v}" }.join(", ") : nil
          memory = m["memory_bytes"].is_a?(Numeric) ? format("%.1f GiB", m["memory_bytes"] / 2.0**30) : nil
          rows = [["rackbench", m["rackbench"]], ["Ruby", m["ruby"]], ["Host", m["hostname"]], ["Kernel", m["kernel"]],
                  ["CPU", [m["cpu_model"], m["cores"] && "#{m['cores']} cores"].compact.join(", ")], ["Memory", memory],
                  ["Servers", servers], ["Started", m["started_at"]], ["Run directory", m["run_dir"] || @data.path],
                  ["Command", Array(m["argv"]).join(" ")]]
          definition_list(rows.reject { |_, v| v.nil? || v.to_s.empty? })
        end

        def setups_table
          return "<p>No setups.jsonl in this run directory.</p>" if @data.setup_rows.empty?

          rows = @data.setup_rows.map do |s|
            status = s["status"] == "failed" ? "<span class=\"bad\">failed</span>" : h(s["status"])
            "<tr><th scope=\"row\">#{h(s['setup'])}</th><td>#{h(s['repetition'])}</td><td>#{status}</td><td>#{h(s['version'])}</td>" \
              "<td>#{h(s['boot_s'] && "#{s['boot_s']} s")}</td><td>#{h(Array(s['worker_pids']).size)}</td>" \
              "<td><code>#{h(Array(s['argv']).join(' '))}</code></td></tr>"
          end
          "<table class=\"setups\"><thead><tr><th>setup</th><th>rep.</th><th>status</th><th>version</th><th>boot</th>" \
            "<th>workers</th><th>command</th></tr></thead><tbody>#{rows.join}</tbody></table>"
        end

        private

        # What the page cannot trust: foreign load ("~"), cells not valid
        # ("?", each with its reason and the -d it needs), and wrk's latency
        # correction as a muted note (an artifact, not an alarm).
        def trust_items(&item)
          QuietNotes.lines(@data.trials).grep(/\A~/).each { |l| yield "<li class=\"foreign\">#{h(l)}</li>" }
          ProtocolNote.line(@data.trials)&.then { |l| yield "<li class=\"protocol\">#{h(l)}</li>" }
          # A search (capacity, tune) measures past its knees on purpose:
          # only the levels it answers with matter, and its answer marks them.
          return if @capacity

          # One cell's check at a time (100,000 held at once were a tenth of
          # a huge run's memory); of those with wrk's artifact, the ratio.
          artifacts = {}
          @data.cells.cells.each do |cell|
            check = ValidityNotes.check(cell)
            artifacts[cell] = ValidityNotes.artifact_ratio(check) unless check.artifacts.empty?
            next if check.valid?

            yield "<li class=\"invalid\"><b>#{h(ValidityNotes.name(@data.cells, cell))}</b>: #{h(check.note)}</li>"
          end
          ValidityNotes.artifact(@data.cells, artifacts).each { |l| item.call("<li class=\"artifact\">#{h(l)}</li>") }
        end

        def capacity_method_list
          m = @data.meta
          plan = m["plan"].is_a?(Hash) ? m["plan"] : {}
          search = m["search"].is_a?(Hash) ? m["search"] : {}
          engines = @data.trials.group_by { |t| t["loop"] }.map { |l, ts| "#{ts.map { |t| t['engine'] }.compact.uniq.join(', ')} (#{l} loop)" }
          durations = [plan["duration_s"], plan["warmup_s"]].map { |v| v.nil? ? "?" : (v.is_a?(Numeric) ? "#{v} s" : v.to_s) }.join(" / ")
          rows = [["Search", "per setup and endpoint, on one booted server: closed loop from workers × threads connections, " \
                             "then open loop from 80% of the req/s at the closed-loop knee; the level doubles until one fails, " \
                             "then bisection between the last pass and the first failure"],
                  ["Levels per search at most", search["max_levels"]],
                  ["Verdict", "a level passes when its p99 and error rate meet the SLO (and an open-loop level keeps its " \
                              "schedule); a p99 within #{(Stats::Slo::MARGIN * 100).round}% of the objective is measured " \
                              "again, up to 3 times, and the majority decides"],
                  ["Latency", "open loop: from each request's planned send (queueing shows); closed loop: from each " \
                              "request's send (hides coordinated omission)"],
                  ["Duration / warm-up per level", "#{durations} (an open-loop level at a low rate runs longer, up to 4× the duration)"],
                  ["Load engine", engines.join("; ")]]
          definition_list(rows.reject { |_, v| v.nil? || v.to_s.empty? })
        end

        def repetitions_note
          min, = @data.repetitions
          return "<li>Some cells ran once: they have no interval, and rackbench compare cannot test them; repeat with -r 3 or more.</li>" if min == 1
          return "<li>Cells ran twice: a 95% interval from 2 repetitions is wide (t = 12.7); -r 3 or more narrows it.</li>" if min == 2

          nil
        end

        def number_cell(cell)
          return "<span class=\"none\">–</span>" unless cell

          rps = cell.rps
          ivl = Stats::Metrics["rps"].interval(cell.trials)
          spread = ivl ? " <span class=\"ci\">[#{NumberFormat.rps(ivl.low)}–#{NumberFormat.rps(ivl.high)}]</span>" : ""
          lat = "#{NumberFormat.ms(cell.latency('mean').median)} / #{NumberFormat.ms(cell.latency('p99').median)}"
          errors = cell.errors.positive? ? " <span class=\"bad\">#{h(NumberFormat.count(cell.errors, 'error'))}</span>" : ""
          "<b>#{NumberFormat.rps(rps.median)}</b> req/s#{spread}#{marks(cell)}<br><span class=\"lat\">#{h(lat)}</span>#{errors}"
        end

        def definition_list(rows)
          "<dl>#{rows.map { |k, v| "<dt>#{h(k)}</dt><dd>#{h(v)}</dd>" }.join}</dl>"
        end
      end
    end
  end
end
