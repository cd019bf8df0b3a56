# frozen_string_literal: true

require_relative "clock"

module Rackbench
  # A block run every `interval` seconds in a background thread, on a fixed
  # schedule of the monotonic clock (t0 + k * interval: the time the block
  # takes does not drift the rate; a tick missed because the block ran long
  # or the machine was busy is skipped and counted in #missed, not bunched
  # up). #stop wakes the thread at once and joins it. The one loop of every
  # helper that watches something while a trial or a server runs: the
  # process sampler (Sampling::Sampler), the queue readers (Sampling::Queues),
  # the health check (Runner::HealthCheck), ProcessControl::LogCap and
  # Sampling::Unanswered.
  #
  # What the helpers need of it, beyond the block:
  # - start(at:): the first tick's time (the sampler's window starts at t0);
  # - after: a block run once on the thread when it is asked to stop (the
  #   sampler's last sample, so its window ends when the measurement does);
  # - #cpu_seconds: the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID, read
  #   inside the thread): what watching cost;
  # - stop(within:): a thread still busy after that many seconds (a health
  #   check in flight) is killed rather than waited for.
  class Periodic
    attr_reader :missed, :cpu_seconds

    def initialize(interval, clock: Clock, after: nil, &block)
      raise ArgumentError, "interval must be positive, got #{interval.inspect}" unless interval.to_f.positive?

      @interval = interval.to_f
      @clock = clock
      @block = block
      @after = after
      @mutex = Mutex.new
      @wake = ConditionVariable.new
      @missed = 0
      @cpu_seconds = 0.0
    end

    def start(at: nil)
      raise ArgumentError, "already started" if @thread

      @stopping = false
      first = at || @clock.now
      @thread = Thread.new { run(first) }
      @thread.report_on_exception = false
      self
    end

    def running?
      !@thread.nil?
    end

    # Stops the thread (a run of the block in progress finishes first, or,
    # with within:, is killed after that many seconds).
    def stop(within: nil)
      @mutex.synchronize do
        @stopping = true
        @wake.signal
      end
      if @thread && !@thread.join(within)
        @thread.kill
        @thread.join
      end
      @thread = nil
      self
    end

    private

    def run(tick)
      cpu0 = Clock.thread_cpu
      begin
        loop do
          @block.call
          tick += @interval
          now = @clock.now
          while tick <= now
            tick += @interval
            @missed += 1
          end
          break if wait_until(tick)
        end
        @after&.call
      ensure
        @cpu_seconds = Clock.thread_cpu - cpu0
      end
    end

    # true when asked to stop (a wake-up before the tick waits again).
    def wait_until(tick)
      @mutex.synchronize do
        until @stopping
          left = tick - @clock.now
          return false if left <= 0

          @wake.wait(@mutex, left)
        end
        true
      end
    end
  end
end
