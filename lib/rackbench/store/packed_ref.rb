# frozen_string_literal: true

module Rackbench
  module Store
    # One record of a Store::PackedRecords, read as the Hash it stands for:
    # [], dig, key? and fetch answer as that Hash's would, decoding only the
    # value asked for (a pass over 100,000 trials that reads three fields
    # decodes three fields each); to_h (and to_hash, to_json) gives the whole
    # Hash, and any other Hash method is answered by it. It is no Hash
    # (is_a?(Hash) is false): code that needs one asks for to_h.
    class PackedRef
      attr_reader :store

      def initialize(store, handle)
        @store = store
        @handle = handle
      end

      def [](key) = @store.field(@handle, key)
      def dig(key, *rest) = @store.dig(@handle, key, rest)
      def key?(key) = @store.key?(@handle, key)
      alias has_key? key?
      alias include? key?
      alias member? key?

      def fetch(key, *default, &block)
        key?(key) ? self[key] : to_hash.fetch(key, *default, &block)
      end

      def to_hash = @store.decode(@handle)
      def to_h(&block) = block ? to_hash.to_h(&block) : to_hash
      def to_json(*args) = to_hash.to_json(*args)
      def inspect = to_hash.inspect

      # Equal to an equal record (a copied line: JsonLines, unique:).
      def ==(other)
        other.respond_to?(:to_hash) && to_hash == other.to_hash
      end

      def method_missing(name, *args, &block)
        Hash.public_method_defined?(name) ? to_hash.public_send(name, *args, &block) : super
      end

      def respond_to_missing?(name, include_private = false)
        Hash.public_method_defined?(name) || super
      end
    end
  end
end
