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

    # The one poll-until-deadline loop: yields until the block returns a true
    # value (returned) or the monotonic deadline (a Clock.now value) has
    # passed (false), sleeping every seconds between tries. The block runs
    # at least once, and once more after the last sleep, so a condition met
    # at the deadline still counts; it may raise to end the wait early.
    def wait_until(deadline, every:)
      loop do
        value = yield
        return value if value
        return false if now > deadline

        sleep every
      end
    end

    def wall_iso8601
      Time.now.utc.strftime("%Y-%m-%dT%H:%M:%S.%3NZ")
    end
  end
end
