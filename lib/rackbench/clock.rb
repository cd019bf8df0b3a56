# frozen_string_literal: true

module Rackbench
  # Monotonic clock for durations and deadlines (never moves backwards, not
  # affected by NTP steps); wall clock only for stored timestamps.
  module Clock
    module_function

    def now
      Process.clock_gettime(Process::CLOCK_MONOTONIC)
    end

    # CPU seconds the calling thread has used (CLOCK_THREAD_CPUTIME_ID).
    def thread_cpu
      Process.clock_gettime(Process::CLOCK_THREAD_CPUTIME_ID)
    end

    def wall_iso8601
      Time.now.utc.strftime("%Y-%m-%dT%H:%M:%S.%3NZ")
    end
  end
end
