# frozen_string_literal: true

require_relative "clock"

module Rackbench
  # A block run every `interval` seconds in a background thread, on a fixed
  # schedule of the monotonic clock (t0 + k * interval: the time the block
  # takes does not drift the rate; a tick missed because the machine was
  # busy is skipped, not bunched up). #stop wakes the thread at once and
  # joins it. Used by the helpers that watch something while a trial or a
  # server runs (ProcessControl::LogCap, Sampling::Unanswered).
  class Periodic
    def initialize(interval, clock: Clock, &block)
      raise ArgumentError, "interval must be positive, got #{interval.inspect}" unless interval.to_f.positive?

      @interval = interval.to_f
      @clock = clock
      @block = block
      @mutex = Mutex.new
      @wake = ConditionVariable.new
    end

    def start
      @stopping = false
      @thread = Thread.new { run }
      @thread.report_on_exception = false
      self
    end

    # Stops the thread (a run of the block in progress finishes first).
    def stop
      @mutex.synchronize do
        @stopping = true
        @wake.signal
      end
      @thread&.join
      @thread = nil
      self
    end

    private

    def run
      tick = @clock.now
      until @stopping
        @block.call
        tick += @interval
        tick += @interval while tick <= @clock.now
        @mutex.synchronize { @wake.wait(@mutex, tick - @clock.now) unless @stopping }
      end
    end
  end
end
