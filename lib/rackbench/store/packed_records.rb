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
    # Nothing a record holds is a small allocation of its own that outlives
    # the read: its lists are laid out in chunks of values too (a list of n
    # values: n + 1 of them), and a string that differs from record to
    # record (a trial's key, its start time, its log's name) is its bytes in
    # a chunk of text, read back as a new String. Small allocations that
    # stay, one here and one there among the garbage of parsing each line,
    # kept the memory of that garbage from being used again: a 100,000-trial
    # run's report held ~90 MB more than its records took (issue 46).
    #
    # A value that takes few values from record to record (a setup's name,
    # a flag, a count of errors that stays 0, an empty list of warnings,
    # a small count: some 90 of the 134 of bench/huge_report.rb's trials, whose
    # figures vary as a real run's) is coded: once SAMPLE records of a
    # shape are in, each value index at which they hold at most
    # 2**PLAN_BITS distinct values (the very same objects: Integers,
    # Floats, nil, true, false, deduplicated strings) is a plan's, and a
    # record whose values there are all in the plan's tables is kept as its
    # other values and those codes, a few bits each, packed in Integers. A
    # record a plan does not take is kept as it is, and learnt from: up to
    # MAX_PLANS plans a shape, the last one used tried first.
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
      NO_LIST = -1 # an empty list's place
      TEXT_BITS = 20
      TEXT_CHUNK = 1 << TEXT_BITS # bytes of text in a chunk
      TEXT_MASK = TEXT_CHUNK - 1
      TEXT_MAX = 4096 # a longer string stays a String of its own (few are)
      PLAN_BITS = 4 # a value coded takes at most 16 values
      MAX_PLANS = 8 # a shape's tries at a plan
      MIN_CODED = 8 # values a plan must code to be made
      WORD_BITS = 60 # codes packed in an Integer (a Fixnum)

      # A value inside a shape: a leaf (index: of the value; kind: :l as
      # it is, :v a list of no object, :s a string in a chunk of text;
      # code: a coded value's [index of its Integer of codes or nil (the
      # value of a plan's table of one), shift, mask, table]) or an object
      # or list of objects (source: its literal, of keys; fields: an
      # object's keys => their Nodes; tables: the plan's, by value index).
      Node = Struct.new(:index, :kind, :source, :keys, :fields, :decoder, :code, :tables)
      # A signature's shapes: its records as they are (plain: its id) and
      # its plans (the last used first), the values of the records no plan
      # took since the last try (samples; nil: no more tries), and the
      # values met at each value index in all samples so far (seen: value
      # => true, or :many past 2**PLAN_BITS of them).
      Kind = Struct.new(:signature, :plain, :plans, :samples, :tries, :seen)
      # A plan's shape id and its encoder: ->(values, out) { out, the
      # values kept and the codes, or nil when some value is not in its tables }.
      Plan = Struct.new(:id, :encode)

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
        @lists_fill = CHUNK
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
        kind = @last if @last&.signature == @signature # the last record's (no hash of some 140 keys)
        kind ||= @kinds[@signature]
        if kind.nil? && @roots.size < MAX_SHAPES
          signature = @signature.dup.freeze
          kind = @kinds[signature] = Kind.new(signature, compile(signature), [], [], 0, nil)
        end
        @last = kind
        PackedRef.new(self, kind && @values.size <= CHUNK ? stored(kind) : record)
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

      # The handle of the record in @values, kept as the first of kind's
      # plans that takes it, else as it is (and learnt from).
      def stored(kind)
        plans = kind.plans
        plans.each_with_index do |plan, i|
          coded = plan.encode.call(@values, @coded) or next
          plans.unshift(plans.delete_at(i)) unless i.zero?
          return put(plan.id, coded)
        end
        handle = put(kind.plain, @values)
        learn(kind)
        handle
      end

      # Keeps the values no plan took; SAMPLE of them make a plan, when
      # MIN_CODED of their values take few values.
      def learn(kind)
        samples = kind.samples or return
        samples << @values.dup
        return if samples.size < SAMPLE

        plan = plan(kind, samples) if @roots.size < MAX_SHAPES # a plan is a shape too
        kind.plans.unshift(plan) if plan
        kind.tries += 1
        kind.samples = kind.tries < MAX_PLANS && @roots.size < MAX_SHAPES ? [] : nil
      end

      # The Plan of kind's samples (Arrays of values of its signature) and
      # of every sample before, or nil. A value index that took more values
      # than the last plan knew is kept, not coded: it is still growing (a
      # run's rounds: 1, then 2, then 3), and coding each new value would
      # cost a try. Each value index is coded (code => value in tables,
      # value => code in codes) or kept (its index among those kept); the
      # codes follow the values kept, packed in Integers of WORD_BITS.
      def plan(kind, samples)
        first = kind.seen.nil?
        seen = (kind.seen ||= Array.new(samples.first.size) { {}.compare_by_identity })
        seen.each_with_index do |found, j|
          next if found == :many

          known = found.size
          samples.each { |values| found[values[j]] = true }
          seen[j] = :many if found.size > 1 << PLAN_BITS || (!first && found.size > known)
        end
        tables = seen.map { |found| found == :many ? nil : found.keys.freeze }
        return nil if tables.count(&:itself) < MIN_CODED

        kept = tables.count(&:nil?)
        layout = Array.new(tables.size)
        word = kept - 1
        shift = WORD_BITS
        at = -1
        tables.each_with_index do |table, j|
          next layout[j] = (at += 1) unless table

          bits = (table.size - 1).bit_length
          next layout[j] = [nil, 0, 0, table] if bits.zero?

          word, shift = word + 1, 0 if shift + bits > WORD_BITS
          layout[j] = [word, shift, (1 << bits) - 1, table]
          shift += bits
        end
        Plan.new(compile(kind.signature, layout), encoder(layout))
      end

      # ->(values, out) of a plan's layout (#plan): out cleared, then the
      # values kept and the Integers of codes; nil when a value coded is
      # not in its table. Its source holds Integers and punctuation only.
      def encoder(layout)
        codes = layout.map { |at| at.is_a?(Array) ? at[3].each_with_index.to_h.compare_by_identity : nil }
        checks = []
        words = Hash.new { |h, w| h[w] = [] }
        kept = []
        layout.each_with_index do |at, j|
          next kept << "v[#{j}]" unless at.is_a?(Array)

          checks << "(c#{j} = e[#{j}][v[#{j}]])"
          words[at[0]] << "(c#{j} << #{at[1]})" if at[0]
        end
        out = kept + words.sort.map { |_, parts| "(#{parts.join(' | ')})" }
        eval("->(e) { ->(v, out) { #{checks.join(' && ')} or return nil; out.clear; out.push(#{out.join(', ')}) } }", # rubocop:disable Security/Eval
             TOPLEVEL_BINDING, __FILE__, __LINE__).call(codes)
      end

      # A new Array of the list at place (#list).
      def list_at(place)
        return [] if place == NO_LIST

        chunk = @lists[place >> CHUNK_BITS]
        first = (place & (CHUNK - 1)) + 1
        chunk.values_at(first...(first + chunk[first - 1])) # a copy (a slice would share the chunk)
      end

      # A new String of the text at place (#pooled): byteslice keeps the
      # chunk's encoding, UTF-8.
      def text_at(place)
        @text[place >> (2 * TEXT_BITS)].byteslice((place >> TEXT_BITS) & TEXT_MASK, place & TEXT_MASK)
      end

      def dig_on(value, rest)
        return nil if value.nil?
        raise TypeError, "#{value.class} does not have #dig method" unless value.respond_to?(:dig)

        value.dig(*rest)
      end

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

      # A list of no object put in @lists (its values as #leaf keeps them,
      # the first 256's strings sampled by position): its place.
      def list(value, at)
        return NO_LIST if value.empty?

        if @lists_fill + value.size + 1 > CHUNK
          @lists << Array.new([CHUNK, value.size + 1].max)
          @lists_fill = 0
        end
        chunk = @lists.last
        place = ((@lists.size - 1) << CHUNK_BITS) | @lists_fill
        chunk[@lists_fill] = value.size
        value.each_with_index { |v, i| chunk[@lists_fill + 1 + i] = leaf(v, i < 256 ? -((at << 8) | i) - 1 : nil) }
        @lists_fill += value.size + 1
        place
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
        @texts[at] = state[1].size == SAMPLE ? :unique : :shared if state[0] == SAMPLE
        shared
      end

      # The place of value's bytes in @text (its chunk, offset, bytesize),
      # or nil for a string kept as it is: not UTF-8, or longer than
      # TEXT_MAX. A NUL follows each string, so that none ends its chunk
      # (a String sliced at the end of another shares its memory, and the
      # chunk written after would be copied).
      def pooled(value)
        size = value.bytesize
        return nil if size > TEXT_MAX || value.encoding != Encoding::UTF_8

        chunk = @text.last
        if chunk.nil? || chunk.bytesize + size + 1 > TEXT_CHUNK
          chunk = String.new(capacity: TEXT_CHUNK, encoding: Encoding::UTF_8)
          @text << chunk
        end
        place = ((@text.size - 1) << (2 * TEXT_BITS)) | (chunk.bytesize << TEXT_BITS) | size
        chunk << value << "\0"
        place
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

      # The shape's id; its root Node decodes the whole record. layout: a
      # plan's (#plan), nil for values kept as they are.
      def compile(signature, layout = nil)
        tables = layout&.map { |at| at.is_a?(Array) ? at[3] : nil }.freeze
        root = node(signature, [0, 0], [], layout, tables)
        root.keys.freeze
        root.decoder = compiled(root)
        @roots << root
        @roots.size - 1
      end

      # The Node at cursor ([next token, next value]); its source is a
      # literal of k[i] (the i-th key) and v[o + j] (the j-th value kept)
      # or q[j][...] (the j-th value, coded).
      # keys: the shape's, each added as it is met (the source names it by
      # its index).
      def node(signature, cursor, keys, layout, tables)
        token = take(signature, cursor)
        case token
        when :h
          fields = Array.new(take(signature, cursor)) do
            key = take(signature, cursor)
            keys << key
            [key, keys.size - 1, node(signature, cursor, keys, layout, tables)]
          end
          Node.new(nil, nil, "{#{fields.map { |_, i, n| "k[#{i}] => #{n.source}" }.join(', ')}}", keys,
                   fields.to_h { |key, _, n| [key, n] }.freeze, nil, nil, tables)
        when :a
          Node.new(nil, nil, "[#{Array.new(take(signature, cursor)) { node(signature, cursor, keys, layout, tables).source }.join(', ')}]",
                   keys, nil, nil, nil, tables)
        else
          leaf_node(token, cursor[1], layout && layout[cursor[1]]).tap { cursor[1] += 1 }
        end
      end

      # The leaf Node of the j-th value: at, its layout (an index, or the
      # [word, shift, mask, table] of a value coded).
      def leaf_node(token, j, at)
        at ||= j
        if at.is_a?(Array)
          value = at[0] ? "q[#{j}][(v[o + #{at[0]}] >> #{at[1]}) & #{at[2]}]" : "q[#{j}][0]"
          code = at.dup.freeze
          at = nil
        else
          value = "v[o + #{at}]"
        end
        Node.new(at, token, { l: value, v: "l.(#{value})", s: "t.(#{value})" }.fetch(token), nil, nil, nil, code)
      end

      def take(signature, cursor)
        cursor[0] += 1
        signature[cursor[0] - 1]
      end

      # A lambda (values, offset) of a node's source, which holds Integers
      # and punctuation only, never a key or value of a record (l, t: read
      # a list, a text, from its place; q: a plan's tables).
      def compiled(node)
        eval("->(k, l, t, q) { ->(v, o) { #{node.source} } }", TOPLEVEL_BINDING, __FILE__, __LINE__) # rubocop:disable Security/Eval
          .call(node.keys, @read_list, @read_text, node.tables)
      end
    end
  end
end
