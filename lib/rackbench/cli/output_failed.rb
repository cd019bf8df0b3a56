# frozen_string_literal: true

require_relative "../error"

module Rackbench
  module CLI
    # A write to the command's stdout or stderr that failed: a pipe closed by
    # its reader (`| head`: EPIPE), a full disk or /dev/full (ENOSPC,
    # EDQUOT), a terminal gone (EIO). What was asked for was not delivered,
    # so the exit status is never 0: it is 1, or the status the command had
    # already decided (compare's gate: 1 slower, 3 undecided), which a
    # reader that stopped early must not turn into a pass. A closed pipe is
    # silent (its reader chose to stop reading); any other failure is one
    # line on stderr, when stderr can still be written.
    class OutputFailed < StandardError
      ERRORS = [Errno::EPIPE, Errno::ENOSPC, Errno::EDQUOT, Errno::EIO].freeze

      attr_reader :error, :status

      def initialize(error, status: nil)
        @error = error
        @status = status
        super(error.message)
      end

      # Yields; a failed write in the block is raised as OutputFailed that
      # carries status (the command's decided exit status).
      def self.guard(status)
        yield
      rescue *ERRORS => e
        raise new(e, status: status)
      end

      # [exit status, the line for stderr or nil] of a failed write (an
      # OutputFailed or one of ERRORS); status: the exit status decided
      # before the write failed, if any.
      def self.outcome(failure, status = nil)
        failure, status = failure.error, failure.status || status if failure.is_a?(OutputFailed)
        code = status.is_a?(Integer) && status.positive? ? status : 1
        return [code, nil] if failure.is_a?(Errno::EPIPE)

        [code, "Error: could not write the output (#{Error.reason(failure)}), so it is incomplete; " \
               "write it where there is space, or to a terminal, and run again"]
      end
    end
  end
end
