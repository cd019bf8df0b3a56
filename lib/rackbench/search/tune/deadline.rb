# frozen_string_literal: true

require_relative "../../clock"

module Rackbench
  module Search
    class Tune
      # --time-budget on the monotonic clock. Every measurement asks first
      # whether it still fits (allows?); when none does, tune stops and
      # recommends from the evidence it has.
      class Deadline
        attr_reader :seconds

        def initialize(seconds, clock: -> { Clock.now })
          @seconds = seconds
          @clock = clock
          @start = clock.call
        end

        def elapsed
          @clock.call - @start
        end

        def left
          @seconds - elapsed
        end

        def allows?(cost)
          left >= cost
        end

        def over?
          left <= 0
        end
      end
    end
  end
end
