# frozen_string_literal: true

require_relative "summary"

module Rackbench
  module Stats
    # Groups stored trials into cells (endpoint x setup x load level) and
    # summarises the repetitions of each cell.
    class Cells
      Cell = Struct.new(:endpoint, :setup, :concurrency, :trials, keyword_init: true) do
        def rps
          Summary.of(trials.map { |t| t["rps"] })
        end

        def latency(key)
          Summary.of(trials.map { |t| t.dig("latency_ms", key) }.compact)
        end

        def errors
          trials.sum { |t| t["error_total"].to_i }
        end

        def requests
          trials.sum { |t| t["requests"].to_i }
        end

        def loop
          trials.first["loop"]
        end
      end

      attr_reader :cells

      def initialize(trials)
        @open = trials.any? { |t| t["rate"] }
        # The load level: the offered rate for open-loop trials, else the
        # concurrency (kept in the `concurrency` slot so reports index alike).
        @cells = trials.group_by { |t| [t["endpoint"], t["setup"], t["rate"] || t["concurrency"]] }.map do |(e, s, c), ts|
          Cell.new(endpoint: e, setup: s, concurrency: c, trials: ts)
        end
      end

      def open_loop?
        @open
      end

      # "c=8" or, for an open-loop run, "r=200" (offered req/s).
      def level_label(level)
        @open ? "r=#{format('%g', level)}" : "c=#{level}"
      end

      def endpoints
        @cells.map(&:endpoint).uniq
      end

      def setups(endpoint = nil)
        @cells.select { |c| endpoint.nil? || c.endpoint == endpoint }.map(&:setup).uniq
      end

      def levels(endpoint = nil)
        @cells.select { |c| endpoint.nil? || c.endpoint == endpoint }.map(&:concurrency).uniq.sort
      end

      def [](endpoint, setup, concurrency)
        @cells.find { |c| c.endpoint == endpoint && c.setup == setup && c.concurrency == concurrency }
      end
    end
  end
end
