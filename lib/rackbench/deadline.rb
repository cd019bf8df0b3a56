# frozen_string_literal: true

require_relative "clock"

module Rackbench
  # A moment on the monotonic clock (Clock.now) by which something must be
  # done: a boot, a read, a graceful stop. A frozen value, so it can be
  # handed on and shared (a boot's readiness and its workers wait on the same
  # one) without anyone moving it; the later of two is [a, b].max.
  #
  #   deadline = Deadline.in(15)
  #   deadline.left                          # seconds still to go, never below 0
  #   deadline.over?                         # true once it has passed
  #   deadline.wait_until { child.exited? }  # the block's value, or nil at the deadline
  #
  # After async's Async::Deadline and Sidekiq's single shutdown deadline: a
  # wait is bounded by one value computed once, not by a timeout restarted
  # at each step.
  class Deadline
    include Comparable

    # The Clock.now value it falls at.
    attr_reader :at

    # seconds from now.
    def self.in(seconds)
      new(Clock.now + seconds)
    end

    def initialize(at)
      @at = Float(at)
      freeze
    end

    # Seconds until the deadline; 0.0 once it has passed.
    def left
      [@at - Clock.now, 0.0].max
    end

    def over?
      Clock.now > @at
    end

    # Polls the block every seconds (Clock.wait_until, the one poll loop:
    # the block runs at least once, and once more after the last sleep) and
    # returns its first true value, or nil once the deadline has passed.
    def wait_until(every: 0.05, &condition)
      Clock.wait_until(@at, every: every, &condition) || nil
    end

    def <=>(other)
      @at <=> other.at if other.is_a?(Deadline)
    end

    def inspect
      "#<#{self.class.name} #{format('%.3f', @at - Clock.now)} s>"
    end
  end
end
