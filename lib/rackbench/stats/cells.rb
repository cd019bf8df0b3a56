# frozen_string_literal: true

require_relative "summary"
require_relative "../store/packed_records"

module Rackbench
  module Stats
    # Groups stored trials into cells (endpoint x setup x load level) and
    # summarises the repetitions of each cell. The trials may be held packed
    # (a report's: Store::PackedTrials): a cell's are then decoded when read.
    class Cells
      Cell = Struct.new(:endpoint, :setup, :level, :trials, keyword_init: true) do
        # The cell's trials as Hashes (Store::PackedRecords.expand).
        def trials = Store::PackedRecords.expand(records)

        # The trials as grouped: Hashes, or Store::PackedRefs, which read a
        # field without decoding the rest (so do the figures below).
        def records = self[:trials]

        def repetitions = records.size

        def rps
          Summary.of(records.map { |t| t["rps"] })
        end

        def latency(key)
          Summary.of(records.map { |t| t.dig("latency_ms", key) }.compact)
        end

        def errors
          records.sum { |t| t["error_total"].to_i }
        end

        def requests
          records.sum { |t| t["requests"].to_i }
        end

        def loop
          records.first["loop"]
        end
      end

      attr_reader :cells

      def initialize(trials)
        trials = trials.refs if trials.respond_to?(:refs) # packed: grouped by their fields, not decoded
        @open = trials.any? { |t| t["rate"] }
        # The load level: the offered rate for open-loop trials, else the
        # concurrency, in the cell's `level`, so reports index both alike.
        # A rate is stored as a Float and a concurrency as an Integer, and
        # cells are grouped by eql?, so c=8 and r=8.0 stay apart in a run
        # that mixes both loops (rackbench capacity).
        #
        # Indexes, so that lookups stay constant-time and a report stays
        # linear in its cells (a scan per lookup made it quadratic: 10,000
        # cells took minutes). @by_key keeps the grouping's own keys (Hash
        # keys compare by eql?: 8 is not 8.0); the pairs' index is made at
        # the first lookup that needs it (a huge run holds one index less).
        @by_key = {}
        @cells = trials.group_by { |t| [t["endpoint"], t["setup"], t["rate"] || t["concurrency"]] }.map do |key, ts|
          @by_key[key] = Cell.new(endpoint: key[0], setup: key[1], level: key[2], trials: ts)
        end
        @open_levels = @cells.select { |c| c.records.first["rate"] }.to_h { |c| [c.level, true] }
        @by_endpoint = @cells.group_by(&:endpoint)
      end

      # Any open-loop trial (a run may mix both loops: see loops).
      def open_loop?
        @open
      end

      # The loops present: [false] closed only, [true] open only, or both.
      def loops
        @cells.map { |c| open_level?(c.level) }.uniq.sort_by { |open| open ? 1 : 0 }
      end

      # Each level labelled by its own trials' loop: "c=8" (concurrency) or
      # "r=200" (offered req/s).
      def level_label(level)
        open_level?(level) ? "r=#{format('%g', level)}" : "c=#{level}"
      end

      def open_level?(level)
        @open_levels.key?(level)
      end

      # Memoized (the cells never change): a report asks for them per cell,
      # and a scan of every cell each time made 40,000 cells' HTML take minutes.
      def endpoints
        @endpoints ||= @cells.map(&:endpoint).uniq.freeze
      end

      def setups(endpoint = nil)
        (@setups ||= {})[endpoint] ||= (endpoint.nil? ? @cells : @by_endpoint.fetch(endpoint, [])).map(&:setup).uniq.freeze
      end

      def levels(endpoint = nil)
        (@levels ||= {})[endpoint] ||= (endpoint.nil? ? @cells : @by_endpoint.fetch(endpoint, [])).map(&:level).uniq
                                                                  .sort_by { |level| [open_level?(level) ? 1 : 0, level] }.freeze
      end

      # The cell at a level (the same loop's level first: c=8 is not r=8).
      def [](endpoint, setup, level)
        @by_key[[endpoint, setup, level]] ||
          (@by_pair ||= @cells.group_by { |c| [c.endpoint, c.setup] }).fetch([endpoint, setup], []).find { |c| c.level == level }
      end
    end
  end
end
