# frozen_string_literal: true

require_relative "packed_ref"

module Rackbench
  module Store
    # JSON records held compactly, for a report of a huge run (issue 46): a
    # trial as a Ruby Hash takes ~9 KB (some 25 nested Hashes around ~140
    # values), packed ~1.2 KB. A packed record is its values in order, side
    # by side in Arrays of CHUNK values, and its shape: its keys and their
    # nesting, kept once for every record that has the same ones. #add packs
    # a record and answers a PackedRef to it, which reads a field without
    # decoding the rest; #decode gives back a Hash equal to the one packed,
    # its keys in the same order, its lists fresh copies. The strings of a
    # record added are frozen (kept, not copied).
    #
    # A list that holds no object is one value; a list that does is part of
    # the shape. A record of a new shape past MAX_SHAPES is kept as it is.
    #
    # Decoding is a Hash literal per shape (and per object in it, when one
    # is read alone), compiled once: some four times as fast as JSON.parse
    # of the line. #expand keeps the last RECENT lists decoded, so a report
    # that reads a cell's trials many times in a row decodes them once.
    class PackedRecords
      CHUNK_BITS = 16
      CHUNK = 1 << CHUNK_BITS # values per Array (a record never straddles two)
      MAX_SHAPES = 1024
      SHAPE_BITS = 10 # a handle: its first value's position << SHAPE_BITS | its shape's id
      SHAPE_MASK = (1 << SHAPE_BITS) - 1
      RECENT = 64
      EMPTY = [].freeze
      SAMPLE = 64

      # A value inside a shape: a leaf (index: of the value; list: a list
      # of no object, given as a copy) or an object or list of objects
      # (source: its literal, of keys; fields: an object's keys => their Nodes).
      Node = Struct.new(:index, :list, :source, :keys, :fields, :decoder)

      # A list's elements as Hashes: a list of PackedRefs decoded, any other
      # list as it is.
      def self.expand(list)
        list.first.is_a?(PackedRef) ? list.first.store.expand(list) : list
      end

      def initialize
        @chunks = []
        @fill = CHUNK # values in the last chunk
        @shapes = {} # signature => shape id
        @roots = [] # shape id => its root Node
        @texts = {} # value index => its strings sampled, then :unique or :shared (#text)
        @signature = [] # the record's being packed (reused: one record at a time)
        @values = []
        @recent = {}.compare_by_identity # list of PackedRefs => its Hashes, the oldest first
      end

      def add(record)
        @signature.clear
        @values.clear
        walk(record)
        id = @shapes[@signature]
        id ||= (@shapes[@signature.dup.freeze] = compile(@signature)) if @roots.size < MAX_SHAPES
        PackedRef.new(self, id && @values.size <= CHUNK ? put(id, @values) : record)
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
        if node.index
          found = chunk[offset + node.index]
          return node.list ? found.dup : found
        end
        (node.decoder ||= compiled(node)).call(chunk, offset)
      end

      def dig_on(value, rest)
        return nil if value.nil?
        raise TypeError, "#{value.class} does not have #dig method" unless value.respond_to?(:dig)

        value.dig(*rest)
      end

      # The record's shape into @signature (an object: :h, its size, then
      # each key and its value's; a list of objects: :a, its size, its
      # elements'; a list of none: :v; any other value: :l) and its values
      # into @values, in order (a list of none as one value, frozen; a
      # string frozen and deduplicated, one copy of each text).
      def walk(value)
        if value.is_a?(Hash)
          @signature << :h << value.size
          value.each do |key, v|
            @signature << key
            walk(v)
          end
        elsif value.is_a?(Array) && nested?(value)
          @signature << :a << value.size
          value.each { |v| walk(v) }
        else
          @signature << (value.is_a?(Array) ? :v : :l)
          @values << leaf(value, @values.size)
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
      # (a trial's key, its start time): then frozen as it is, sparing the
      # table of deduplicated strings an entry a trial.
      def text(value, at)
        state = (@texts[at] ||= [0, {}.compare_by_identity]) # [strings met, the distinct ones] while sampling
        return value.freeze if state == :unique

        shared = -value
        return shared if state == :shared

        state[0] += 1
        state[1][shared] = true
        @texts[at] = state[1].size == SAMPLE ? :unique : :shared if state[0] == SAMPLE
        shared
      end

      def nested?(list) = list.any? { |v| v.is_a?(Hash) || (v.is_a?(Array) && nested?(v)) }

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

      # The shape's id; its root Node decodes the whole record.
      def compile(signature)
        root = node(signature, [0, 0], [])
        root.keys.freeze
        root.decoder = compiled(root)
        @roots << root
        @roots.size - 1
      end

      # The Node at cursor ([next token, next value]); its source is a
      # literal of k[i] (the i-th key) and v[o + j] (the j-th value).
      # keys: the shape's, each added as it is met (the source names it by
      # its index).
      def node(signature, cursor, keys)
        token = take(signature, cursor)
        case token
        when :h
          fields = Array.new(take(signature, cursor)) do
            key = take(signature, cursor)
            keys << key
            [key, keys.size - 1, node(signature, cursor, keys)]
          end
          Node.new(nil, false, "{#{fields.map { |_, i, n| "k[#{i}] => #{n.source}" }.join(', ')}}", keys,
                   fields.to_h { |key, _, n| [key, n] }.freeze)
        when :a
          Node.new(nil, false, "[#{Array.new(take(signature, cursor)) { node(signature, cursor, keys).source }.join(', ')}]", keys)
        else
          cursor[1] += 1
          Node.new(cursor[1] - 1, token == :v, "v[o + #{cursor[1] - 1}]#{'.dup' if token == :v}")
        end
      end

      def take(signature, cursor)
        cursor[0] += 1
        signature[cursor[0] - 1]
      end

      # A lambda (values, offset) of a node's source, which holds Integers
      # and punctuation only, never a key or value of a record.
      def compiled(node)
        eval("->(k) { ->(v, o) { #{node.source} } }", TOPLEVEL_BINDING, __FILE__, __LINE__).call(node.keys) # rubocop:disable Security/Eval
      end
    end
  end
end
