# frozen_string_literal: true

require_relative "json_object"
require_relative "result"
require_relative "../error"

module Rackbench
  module Load
    # What the two wrk parsers share: reading the one JSON line a wrk Lua
    # script prints after a marker, whose figures are in microseconds.
    #
    # Extended by WrkOutput and WrkOpenOutput, which define MARKER (the
    # line's prefix, named in every error) and LATENCY_KEYS. Its methods
    # stay private to them.
    module WrkLine
      US_PER_MS = 1000.0
      US_PER_S = 1_000_000.0

      private

      # The last MARKER line of text, as a Hash. script: the Lua script that
      # prints it, named when the line is missing.
      def extract(text, script)
        line = text.to_s.scan(/^#{self::MARKER} (.*)$/).flatten.last
        JsonObject.parse(line, what: "wrk's #{self::MARKER} line",
                               missing: "wrk printed no #{self::MARKER} line: was it run with -s #{script}?")
      end

      def count(hash, key)
        value = hash[key]
        return value if value.is_a?(Integer) && !value.negative?

        raise Error, "wrk's #{self::MARKER} line has #{key}=#{value.inspect}, expected a whole number"
      end

      def errors(json)
        given = section(json, "errors")
        Result::ERROR_KINDS.to_h { |kind| [kind, count(given, kind)] }
      end

      # LATENCY_KEYS in milliseconds, from the section key; where names the
      # section in errors.
      def latency(json, key, where = key)
        given = section(json, key)
        self::LATENCY_KEYS.to_h { |k| [k, milliseconds(given, k, where)] }
      end

      def section(json, key)
        value = json[key]
        return value if value.is_a?(Hash)

        raise Error, "wrk's #{self::MARKER} line has no #{key} object"
      end

      # nil stays nil: no sample was recorded.
      def milliseconds(hash, key, where)
        raise Error, "wrk's #{self::MARKER} line has no #{where} #{key}" unless hash.key?(key)

        value = hash[key]
        return nil if value.nil?
        return value / US_PER_MS if value.is_a?(Numeric) && !value.negative?

        raise Error, "wrk's #{self::MARKER} line has #{where} #{key}=#{value.inspect}, expected microseconds"
      end
    end
  end
end
