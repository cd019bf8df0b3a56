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
      MEMORY = %w[pss_total_mb pss_per_worker_mb rss_sum_mb].freeze
      # A setup's figures, kept as the trials go by (not the trials: a
      # report's are read a field at a time, Store::PackedTrials): each
      # MEMORY figure's values, and the server and client CPU of the
      # (first) trial where the server used the most.
      Setup = Struct.new(:memory, :peak)

      def initialize(trials, io:)
        @by_setup = {}
        trials.each { |t| add(t) if t["memory"] || t["cpu"] }
        @io = io
      end

      def render(print_rows)
        return if @by_setup.empty?

        header = ["memory and CPU", "PSS footprint", "PSS/worker", "summed RSS", "server CPU", "client CPU"]
        rows = @by_setup.map { |setup, seen| row(setup, seen) }
        @io.puts
        print_rows.call([header] + rows)
        @io.puts "PSS splits shared pages between processes; CPU in % of one core (peak trial); client = the load generator."
      end

      private

      def add(trial)
        seen = (@by_setup[trial["setup"]] ||= Setup.new(MEMORY.map { [] }, nil))
        MEMORY.each_with_index { |key, i| seen.memory[i] << trial.dig("memory", key) }
        cpu = [trial.dig("cpu", "server_pct"), trial.dig("cpu", "client_pct")]
        seen.peak = cpu if seen.peak.nil? || cpu[0].to_f > seen.peak[0].to_f
      end

      def row(setup, seen)
        [setup, *seen.memory.map { |values| mb(Stats::Summary.of(values.compact).median) }, pct(seen.peak[0]), pct(seen.peak[1])]
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
