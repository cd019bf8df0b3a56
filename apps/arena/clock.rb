# frozen_string_literal: true

module Rackbench
  module Workload
    module Arena
      # Monotonic clock for the durations the arena reports (immune to wall
      # clock steps). A copy of the idea in rackbench/clock.rb, because the
      # arena app must load without the rest of rackbench.
      module Clock
        module_function

        def now
          Process.clock_gettime(Process::CLOCK_MONOTONIC)
        end

        # Milliseconds elapsed since a #now reading, rounded to microseconds.
        def ms_since(started)
          ((now - started) * 1000).round(3)
        end
      end
    end
  end
end
