# frozen_string_literal: true

module Rackbench
  module Store
    # A shape of Store::PackedRecords (a signature, and a plan's layout of
    # its values) compiled: its Nodes, and a Hash literal per shape (and per
    # object in it, when one is read alone) that decodes a record, some four
    # times as fast as JSON.parse of the line.
    module PackedShapes
      private

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
          PackedRecords::Node.new(nil, nil, "{#{fields.map { |_, i, n| "k[#{i}] => #{n.source}" }.join(', ')}}", keys,
                   fields.to_h { |key, _, n| [key, n] }.freeze, nil, nil, tables)
        when :a
          PackedRecords::Node.new(nil, nil, "[#{Array.new(take(signature, cursor)) { node(signature, cursor, keys, layout, tables).source }.join(', ')}]",
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
        PackedRecords::Node.new(at, token, { l: value, v: "l.(#{value})", s: "t.(#{value})" }.fetch(token), nil, nil, nil, code)
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
