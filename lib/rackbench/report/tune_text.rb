# frozen_string_literal: true

require "json"

require_relative "number_format"
require_relative "../stats/verdict"
require_relative "../store/tune_journal"

module Rackbench
  module Report
    # rackbench tune's answer on the terminal, rendered from the run
    # directory alone (tune.jsonl, recommendation.json): how the space was
    # bounded, what each round kept, the recommendation with its reason and
    # runner-up, and the throughput-vs-memory Pareto table.
    class TuneText
      def initialize(dir, io:)
        @rows = Store::TuneJournal.rows(dir) { |text| io.puts "Warning: #{text}" }
        @rec = Store::TuneJournal.recommendation(dir)
        @dir = dir
        @io = io
      end

      def render
        @io.puts
        space
        rounds
        recommendation
        pareto
      end

      private

      def space
        row = @rows.find { |r| r["type"] == "space" } or return
        @rows.select { |r| r["type"] == "footprint" && r["failed"] }.each { |r| @io.puts "memory: #{r['server']} left out: #{r['failed']}" }
        row["limits"].each { |l| @io.puts "memory: #{l['note']}" }
        @io.puts "space: #{row['candidates'].size} setups; probe noise band #{(row['noise_band'] * 100).round}%"
      end

      def rounds
        @rows.select { |r| r["type"] == "round" }.each do |r|
          if r["skipped"]
            @io.puts "round #{r['round']}: skipped, #{r['skipped']}"
            next
          end
          @io.puts "round #{r['round']} (#{r['method']}):"
          if r["round"] == 3
            r["decisions"].each { |d| @io.puts "  #{d['setup']}: #{d['reason']}" }
            Array(r["pairs"]).each { |sentence| @io.puts "  #{sentence}" }
            next
          end

          decisions(r["decisions"])
        end
      end

      # Each decision when there are few; else who was kept, and the first drops.
      def decisions(list)
        if list.size <= 5
          list.each { |d| @io.puts "  #{d['keep'] ? 'kept   ' : 'dropped'} #{d['setup']}: #{d['reason']}" }
          return
        end
        kept = list.select { |d| d["keep"] }.map { |d| d["setup"] }
        @io.puts "  #{list.size} setups, kept #{kept.size}: #{kept.first(8).join(', ')}#{kept.size > 8 ? ', ...' : ''}"
        dropped = list.reject { |d| d["keep"] }
        dropped.first(3).each { |d| @io.puts "  dropped #{d['setup']}: #{d['reason']}" }
        @io.puts "  (#{dropped.size - 3} more dropped: see tune.jsonl)" if dropped.size > 3
      end

      def recommendation
        unless @rec
          @io.puts "\nNo recommendation was written (see tune.jsonl in #{@dir})."
          return
        end
        @io.puts
        return unmet unless @rec["setup"]

        @io.puts "Recommended: #{@rec['reason']}"
        @io.puts "  edges: #{@rec.dig('edges', 'note')}" if @rec.dig("edges", "note")
        @io.puts "  evidence: #{@rec['evidence_note']}#{@rec['stopped'] ? " (stopped early: #{@rec['stopped']})" : ''}"
        limit
        comparison
        files = Array(@rec["config_files"])
        if files.any?
          @io.puts "  config: #{files.map { |f| File.join(@dir, f) }.join(', ')} (start with: #{@rec['start_command']})"
        else
          @io.puts "  no config file for #{@rec['server']}; start it with: #{@rec['start_command']}"
        end
        @io.puts "  method: #{@rec['method']}; #{@rec['elapsed_s']} s of a #{@rec['time_budget_s'].round} s budget"
      end

      # What limited the recommended setup at the highest load it was measured
      # at (Stats::Verdict of that trial in the tune directory's trials.jsonl):
      # its closed-loop probe, at c = its connections; else its highest
      # open-loop rate, said as that rate (an open-loop trial's "concurrency"
      # is the connections wrk held, not a level it ran at).
      def limit
        trials = File.foreach(File.join(@dir, "trials.jsonl")).filter_map { |l| JSON.parse(l) rescue nil }
        mine = trials.select { |t| t["setup"] == @rec["setup"] }
        closed = mine.reject { |t| t["rate"] }.select { |t| t["concurrency"] }.max_by { |t| t["concurrency"] }
        top = closed || mine.select { |t| t["rate"] }.max_by { |t| t["rate"].to_f }
        return unless top

        at = closed ? "c=#{top['concurrency']}" : "r=#{format('%g', top['rate'])} req/s offered"
        @io.puts "  what limits it at #{at}: #{Stats::Verdict.for(top).text}"
      rescue SystemCallError
        nil
      end

      def unmet
        @io.puts "No recommendation: #{@rec['reason']}."
        best = @rec["best_throughput"]
        @io.puts "  the most throughput regardless of the SLO: #{best['setup']} (#{NumberFormat.rps(best['probe_rps'])} req/s, closed loop)" if best
      end

      BASIS = { "slo" => "holding the SLO", "rps" => "req/s", "p99" => "p99", "pss" => "the PSS footprint",
                "processes" => "the number of processes", "order" => "nothing (the knee order kept)" }.freeze

      # How the runner-up was judged: in paired rounds (the decision's
      # method, margin and correction; the words are in the reason above),
      # or not confirmed, and why.
      def comparison
        runner = @rec["runner_up"]
        return @io.puts("  runner-up: none (one setup measured)") unless runner

        decision = @rec["decision"]
        unless decision
          @io.puts "  runner-up: #{runner['setup']}; not confirmed in paired rounds (#{runner['not_confirmed']})"
          return
        end
        confirm = @rec["confirm"] || {}
        need = decision["rounds_needed"]
        state = if decision["settled"] then "settled"
                elsif need then "not settled (about #{[need - decision['rounds'].to_i, 1].max} more rounds)"
                else "not settled"
                end
        @io.puts "  runner-up: #{runner['setup']}; decided by #{BASIS.fetch(decision['basis'], decision['basis'])}, #{state}, " \
                 "over #{decision['rounds']} paired rounds " \
                 "(#{confirm['method']}; equivalence margin +-#{format('%g', confirm['margin'].to_f * 100)}%; #{confirm['families'] || confirm['holm']})"
        @io.puts "  rule: #{confirm['rule']}" if confirm["rule"]
      end

      def pareto
        rows = Array(@rec&.dig("pareto"))
        return if rows.empty?

        @io.puts
        @io.puts "Throughput vs memory (* = on the Pareto front: no other setup has both more req/s and less PSS)."
        @io.puts "req/s: the round-1 closed-loop probe, measured alike for every setup; knee: the open-loop rate within the SLO."
        width = [rows.map { |r| r["setup"].size }.max, 5].max
        @io.puts format("  %-#{width}s %11s %11s %9s  %s", "setup", "req/s", "knee req/s", "PSS MiB", "status")
        rows.each do |r|
          mark = r["pareto"] ? "*" : " "
          @io.puts format("%s %-#{width}s %11s %11s %9s  %s", mark, r["setup"], NumberFormat.rps(r["rps"]),
                          r["knee_rps"] ? NumberFormat.rps(r["knee_rps"]) : "-",
                          r["footprint_mb"] ? format("%.1f", r["footprint_mb"]) : "-", r["status"])
        end
      end
    end
  end
end
