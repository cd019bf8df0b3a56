# frozen_string_literal: true

require_relative "json_lines"

module Rackbench
  module Store
    # A JsonLines whose #read keeps each record packed the moment it is
    # read (keep: a Hash => what stands for it, a Store::PackedRef),
    # so a 1 GB trials.jsonl is never held as Hashes. Everything else is
    # JsonLines#read's own: the checks, the notices, the lines left out. A
    # copy is found as there, by comparing records (PackedRef#== decodes).
    class PackedLines < JsonLines
      def initialize(file, keep:, **options)
        super(file, **options)
        @keep = keep
      end

      private

      # JsonLines makes each record here (a line's, the last one's too).
      def record(line, number)
        @keep.call(super)
      end

      # Strings are deduplicated where keep packs them (Store::PackedRecords),
      # not in a walk of their own.
      def shared(value) = value
    end
  end
end
