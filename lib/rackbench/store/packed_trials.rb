# frozen_string_literal: true

require_relative "run_dir"
require_relative "packed_lines"
require_relative "packed_records"
require_relative "takes"

module Rackbench
  module Store
    # A run's trials as a report reads them (issue 46): the records
    # RunDir#trials returns, in its order (per boot: Store::Takes), held
    # packed (Store::PackedRecords, ~1.2 KB a trial instead of ~9 KB), read
    # from trials.jsonl a line at a time. Enumerable over the trials as
    # Store::PackedRefs (each reads as its Hash: [], dig, key?, fetch; to_h
    # for the Hash itself); Stats::Cells groups #refs and decodes a cell's
    # trials when they are read.
    class PackedTrials
      include Enumerable

      attr_reader :refs

      # The trials of the run directory store (a Store::RunDir); its
      # notices (a line cut short, a copied line) go to store.notice.
      def self.read(store)
        file = File.join(store.path, "trials.jsonl")
        return new(store.trials) unless File.exist?(file) # none: RunDir#trials says whether they are lost

        new.tap { |trials| trials.read_lines(file, store.method(:notice)) }
      end

      # records: Hashes (a test's, or none).
      def initialize(records = [])
        @packed = PackedRecords.new
        @refs = records.map { |r| @packed.add(r) }
      end

      # Adds the trials of file (a trials.jsonl, read as RunDir#trials
      # reads it) with one record per boot (Store::Takes: a boot's takes
      # are packed apart until merged, then let go); notice: told of each
      # line left out.
      def read_lines(file, notice)
        takes = PackedRecords.new
        kind, required = RunDir::FILES.fetch("trials.jsonl")
        lines = PackedLines.new(file, kind: kind, required: required, schema: RunDir::SCHEMAS.fetch("trials.jsonl"),
                                      unique: true, keep: ->(r) { (r.key?("take") ? takes : @packed).add(r) })
        @refs.concat(Takes.boots(lines.read(&notice)) { |boot| @packed.add(boot) })
      end

      def each
        return to_enum(:each) { size } unless block_given?

        @refs.each { |ref| yield ref }
      end

      def size = @refs.size
      alias length size
      def empty? = @refs.empty?
    end
  end
end
