# frozen_string_literal: true

require_relative "../stats/summary"

module Rackbench
  module Report
    # Memory and CPU per setup, from the sampler's figures in the trials:
    # footprint = sum of PSS over the server's processes (median over the
    # setup's trials), beside summed RSS, which counts copy-on-write pages
    # once per worker and so overstates a preforked server. CPU is % of one
    # core, from the trial where the server used the most.
    class ResourceTable
      def initialize(trials, io:)
        @by_setup = trials.select { |t| t["memory"] || t["cpu"] }.group_by { |t| t["setup"] }
        @io = io
      end

      def render(print_rows)
        return if @by_setup.empty?

        header = ["memory and CPU", "PSS footprint", "PSS/worker", "summed RSS", "server CPU", "client CPU"]
        rows = @by_setup.map { |setup, trials| row(setup, trials) }
        @io.puts
        print_rows.call([header] + rows)
        @io.puts "PSS splits shared pages between processes; CPU in % of one core (peak trial); client = the load generator."
      end

      private

      def row(setup, trials)
        peak = trials.max_by { |t| t.dig("cpu", "server_pct").to_f }
        [setup, mb(median(trials, "pss_total_mb")), mb(median(trials, "pss_per_worker_mb")),
         mb(median(trials, "rss_sum_mb")), pct(peak.dig("cpu", "server_pct")), pct(peak.dig("cpu", "client_pct"))]
      end

      def median(trials, key)
        Stats::Summary.of(trials.map { |t| t.dig("memory", key) }.compact).median
      end

      def mb(value)
        value ? format("%.0f MiB", value) : "-"
      end

      def pct(value)
        value ? format("%.0f%%", value) : "-"
      end
    end
  end
end
