# frozen_string_literal: true

module Rackbench
  module Store
    # A record as Store::PackedRecords packs it: its signature (@signature:
    # its keys and their nesting) and its values (@values), in order.
    module PackedWalk
      EMPTY = [].freeze

      private

      # The record's shape into @signature (an object: :h, its size, then
      # each key and its value's; a list of objects: :a, its size, its
      # elements'; a list of none: :v; a string kept in a chunk of text: :s;
      # any other value: :l) and its values into @values, in order (a list
      # of none as its place in @lists; a string frozen and deduplicated,
      # one copy of each text, or where each record's differs its place in
      # @text).
      def walk(value)
        if value.is_a?(Hash)
          walk_object(value)
        elsif value.is_a?(Array) && nested?(value)
          @signature << :a << value.size
          value.each { |v| walk(v) }
        elsif value.is_a?(Array)
          @signature << :v
          @values << list(value, @values.size)
        else
          @signature << :l
          @values << leaf(value, @values.size)
        end
      end

      # #walk of an object, its plain values taken here (a trial holds some
      # 140 of them: a call each less).
      def walk_object(object)
        signature = @signature
        values = @values
        signature << :h << object.size
        object.each do |key, v|
          signature << key
          case v
          when Hash then walk_object(v)
          when String
            found = text(v, values.size, pool: true)
            signature << (found.is_a?(Integer) ? :s : :l)
            values << found
          when Array then walk(v)
          else
            signature << :l
            values << v
          end
        end
      end

      # A value as kept at value index at (nil: deeper in a list).
      def leaf(value, at = nil)
        case value
        when String then at ? text(value, at) : -value
        when Array
          return EMPTY if value.empty?

          value.each_with_index.map { |v, i| leaf(v, at && i < 256 ? -((at << 8) | i) - 1 : nil) }.freeze
        else value
        end
      end

      # A string at value index at (negative: the i-th of the list there):
      # deduplicated (one copy of a setup's
      # name for all its trials), unless the first SAMPLE there all differed
      # (a trial's key, its start time): then, with pool:, its place in a
      # chunk of text (#pooled), else frozen as it is; either spares the
      # table of deduplicated strings an entry a trial.
      def text(value, at, pool: false)
        state = (@texts[at] ||= [0, {}.compare_by_identity]) # [strings met, the distinct ones] while sampling
        return (pool && pooled(value)) || value.freeze if state == :unique

        shared = -value
        return shared if state == :shared

        state[0] += 1
        state[1][shared] = true
        @texts[at] = state[1].size == PackedRecords::SAMPLE ? :unique : :shared if state[0] == PackedRecords::SAMPLE
        shared
      end

      def nested?(list) = list.any? { |v| v.is_a?(Hash) || (v.is_a?(Array) && nested?(v)) }
    end
  end
end
