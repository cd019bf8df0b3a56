# frozen_string_literal: true

require_relative "packed_ref"
require_relative "packed_walk"
require_relative "packed_pools"
require_relative "packed_plans"
require_relative "packed_shapes"

module Rackbench
  module Store
    # JSON records held compactly, for a report of a huge run (issue 46): a
    # trial as a Ruby Hash takes ~9 KB (some 25 nested Hashes around ~140
    # values), packed ~0.7 KB. A packed record is its values in order, side
    # by side in Arrays of CHUNK values, and its shape: its keys and their
    # nesting (PackedWalk), kept once for every record that has the same
    # ones, with a plan's codes for the values that repeat (PackedPlans). #add packs
    # a record and answers a PackedRef to it, which reads a field without
    # decoding the rest; #decode gives back a Hash equal to the one packed,
    # its keys in the same order, its lists fresh copies. The strings of a
    # record added are frozen (kept, not copied), but for those that differ
    # from record to record, kept as bytes (PackedPools) and read back new.
    #
    # A list that holds no object is one value; a list that does is part of
    # the shape. A record of a new shape past MAX_SHAPES is kept as it is.
    #
    # Decoding is a Hash literal per shape (PackedShapes). #expand keeps the
    # last RECENT lists decoded, so a report that reads a cell's trials many
    # times in a row decodes them once.
    class PackedRecords
      include PackedWalk
      include PackedPools
      include PackedPlans
      include PackedShapes

      CHUNK_BITS = 16
      CHUNK = 1 << CHUNK_BITS # values per Array (a record never straddles two)
      MAX_SHAPES = 1024
      SHAPE_BITS = 10 # a handle: its first value's position << SHAPE_BITS | its shape's id
      SHAPE_MASK = (1 << SHAPE_BITS) - 1
      RECENT = 64
      SAMPLE = 64

      # A value inside a shape: a leaf (index: of the value; kind: :l as
      # it is, :v a list of no object, :s a string in a chunk of text;
      # code: a coded value's [index of its Integer of codes or nil (the
      # value of a plan's table of one), shift, mask, table]) or an object
      # or list of objects (source: its literal, of keys; fields: an
      # object's keys => their Nodes; tables: the plan's, by value index).
      Node = Struct.new(:index, :kind, :source, :keys, :fields, :decoder, :code, :tables)

      # A list's elements as Hashes: a list of PackedRefs decoded, any other
      # list as it is.
      def self.expand(list)
        list.first.is_a?(PackedRef) ? list.first.store.expand(list) : list
      end

      def initialize
        @chunks = []
        @fill = CHUNK # values in the last chunk
        @kinds = {} # signature => its Kind
        @coded = [] # a record's values as a plan keeps them (reused)
        @roots = [] # shape id => its root Node
        @texts = {} # value index => its strings sampled, then :unique or :shared (#text)
        @lists = [] # chunks of lists' values: a list is its size, then its values
        @lists_fill = LIST_CHUNK
        @text = [] # chunks of text (UTF-8), a string's bytes then a NUL
        @signature = [] # the record's being packed (reused: one record at a time)
        @values = []
        @read_list = method(:list_at).to_proc
        @read_text = method(:text_at).to_proc
        @recent = {}.compare_by_identity # list of PackedRefs => its Hashes, the oldest first
        @last = nil # the last record's Kind
      end

      def add(record)
        @signature.clear
        @values.clear
        walk(record)
        found = kind_of_record
        PackedRef.new(self, found && @values.size <= CHUNK ? stored(found) : record)
      end

      def decode(handle)
        handle.is_a?(Integer) ? value(handle, root(handle)) : handle
      end

      # The value of a top-level key, as Hash#[] finds it; the rest of the
      # record is not decoded.
      def field(handle, key)
        return handle[key] unless handle.is_a?(Integer)

        node = root(handle).fields[key] or return nil
        value(handle, node)
      end

      # The value at key, then rest (keys), in the record, as Hash#dig
      # finds it; the rest of the record is not decoded.
      def dig(handle, key, rest)
        return handle.dig(key, *rest) unless handle.is_a?(Integer)

        node = root(handle).fields[key] or return nil
        i = 0
        while i < rest.size
          return dig_on(value(handle, node), rest[i..]) unless node.fields # a leaf, or a list of objects

          node = node.fields[rest[i]] or return nil
          i += 1
        end
        value(handle, node)
      end

      def key?(handle, key)
        handle.is_a?(Integer) ? root(handle).fields.key?(key) : handle.key?(key)
      end

      # refs' records decoded, the same Array while refs is among the last
      # RECENT lists asked for.
      def expand(refs)
        found = @recent.delete(refs) || refs.map(&:to_h)
        @recent[refs] = found
        @recent.shift if @recent.size > RECENT
        found
      end

      private

      def root(handle) = @roots[handle & SHAPE_MASK]

      def value(handle, node)
        position = handle >> SHAPE_BITS
        chunk = @chunks[position >> CHUNK_BITS]
        offset = position & (CHUNK - 1)
        if (code = node.code)
          at, shift, mask, table = code
          found = table[at ? (chunk[offset + at] >> shift) & mask : 0]
        elsif node.index
          found = chunk[offset + node.index]
        else
          return (node.decoder ||= compiled(node)).call(chunk, offset)
        end
        node.kind == :l ? found : (node.kind == :v ? list_at(found) : text_at(found))
      end

      def dig_on(value, rest)
        return nil if value.nil?
        raise TypeError, "#{value.class} does not have #dig method" unless value.respond_to?(:dig)

        value.dig(*rest)
      end

      def put(id, values)
        if @fill + values.size > CHUNK
          @chunks << Array.new(CHUNK)
          @fill = 0
        end
        chunk = @chunks.last
        position = ((@chunks.size - 1) * CHUNK) + @fill
        # One value at a time: chunk[@fill, n] = values would grow the
        # chunk by half again (measured: 768 KB for its 512 KB).
        values.each do |v|
          chunk[@fill] = v
          @fill += 1
        end
        (position << SHAPE_BITS) | id
      end
    end
  end
end
