# frozen_string_literal: true

require_relative "../error"
require_relative "../suggest"

module Rackbench
  module Config
    # A run's settings as one frozen value (issue 45, item 1): a Struct
    # whose members are DEFAULTS' keys, built by Config.build alone (the
    # layers merged, each value parsed, the rules run) and frozen there.
    # Reading a key that is not a setting raises (a misspelt key is an
    # error, not nil), with a string key as with a symbol (meta.json's
    # shape reads the same). A changed copy is `with(key: value)`: its keys
    # checked, its values taken as given (a search's level or a tune step
    # sets its own duration or connections, which the rules, judging what
    # a user asks for, need not see again; Config.build(settings, layer)
    # builds a checked one).
    #
    # It answers the Hash methods the rooms that read settings use ([],
    # key?, fetch, dig, to_h, merge, slice, except, each), so a reader
    # needs no change to take it; `merge` is `with`: a Settings again.
    class Settings
      def self.[](keys)
        Class.new(self) do
          const_set(:KEYS, keys.freeze)
          attr_reader(*keys)
        end
      end

      # values: a Hash holding every key (Config.validate's result).
      def initialize(values)
        missing = self.class::KEYS - values.keys
        raise ArgumentError, "settings without #{missing.join(', ')}" unless missing.empty?

        self.class::KEYS.each { |k| instance_variable_set(:"@#{k}", values.fetch(k)) }
        freeze
      end

      def [](key)
        public_send(member!(key))
      end

      def key?(key) = self.class::KEYS.include?(key.to_s.to_sym)
      alias include? key?

      def fetch(key, *default)
        key?(key) ? self[key] : (default.empty? ? member!(key) : default.first)
      end

      def dig(key, *rest)
        value = self[key]
        rest.empty? || value.nil? ? value : value.dig(*rest)
      end

      def keys = self.class::KEYS
      def to_h(&block) = block ? pairs.to_h(&block) : pairs.to_h
      def each(&block) = pairs.each(&block)
      def slice(*keys) = to_h.slice(*keys)
      def except(*keys) = to_h.except(*keys)
      def values_at(*keys) = keys.map { |k| self[k] }

      # A copy with these values (each key a setting), frozen.
      def with(**changes)
        changes.each_key { |k| member!(k) }
        self.class.new(to_h.merge(changes))
      end

      def merge(other) = with(**other.to_h.transform_keys(&:to_sym))

      def ==(other)
        other.is_a?(Settings) || other.is_a?(Hash) ? to_h == other.to_h : false
      end

      def inspect = "#<Settings #{to_h.inspect}>"

      private

      def pairs = self.class::KEYS.map { |k| [k, public_send(k)] }

      def member!(key)
        k = key.to_s.to_sym
        return k if self.class::KEYS.include?(k)

        raise ArgumentError, "no setting #{key.inspect}#{Suggest.did_you_mean(k, self.class::KEYS)}"
      end
    end
  end
end
