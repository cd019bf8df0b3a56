# frozen_string_literal: true

require_relative "clock"
require_relative "params"
require_relative "response"

module Rackbench
  module Workload
    module Arena
      # GET /fibonacci/:n — CPU-bound work that holds the GVL: the naive
      # doubly recursive definition, O(phi^n) calls, deliberately unmemoised
      # (the seed study used n=32, roughly a second of Ruby on one core).
      # n is limited to 0..40 so one request cannot run for minutes.
      module Fibonacci
        RANGE = (0..40).freeze

        module_function

        def call(_env, raw)
          n = Params.integer(raw, RANGE, "n")
          started = Clock.now
          value = fib(n)
          Response.json({ n: n, value: value, ms: Clock.ms_since(started) })
        end

        def fib(n)
          n < 2 ? n : fib(n - 1) + fib(n - 2)
        end
      end
    end
  end
end
