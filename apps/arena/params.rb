# frozen_string_literal: true

require_relative "halt"

module Rackbench
  module Workload
    module Arena
      # Parses the single path parameter of an endpoint. Only plain decimal
      # notation is accepted (no sign, exponent, hex, "nan" or "inf"); a value
      # outside the range raises Halt 400 with a message naming what is
      # accepted and echoing (a truncated inspect of) what was received.
      module Params
        INTEGER = /\A\d+\z/
        DECIMAL = /\A(?:\d+(?:\.\d+)?|\.\d+)\z/
        ECHO_LIMIT = 40

        module_function

        def integer(raw, range, name)
          value = Integer(raw, 10) if INTEGER.match?(raw)
          return value if value && range.cover?(value)

          reject(name, "an integer from #{range.min} to #{range.max}", raw)
        end

        def seconds(raw, range, name)
          value = Float(raw) if DECIMAL.match?(raw)
          return value if value && range.cover?(value)

          reject(name, "a number of seconds from #{range.min} to #{range.max} (e.g. 0.05)", raw)
        end

        def reject(name, accepted, raw)
          echo = raw.to_s[0, ECHO_LIMIT].inspect
          raise Halt.new(400, "#{name} must be #{accepted}, got #{echo}")
        end
      end
    end
  end
end
