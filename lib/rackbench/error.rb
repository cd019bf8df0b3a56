# frozen_string_literal: true

module Rackbench
  # An error meant for the user: its message is one line that says what
  # happened and what to do. The CLI prints it as "Error: ..." and exits 1;
  # anything else escaping is a bug in rackbench.
  class Error < StandardError
    # The run directory that keeps the trials completed before the error.
    attr_accessor :run_dir

    # An OS error's message without Ruby's " @ rb_sysopen - path" tail, for
    # a message that names the path itself: "No space left on device".
    def self.reason(error)
      error.message.sub(/ @ .*| - .*/, "")
    end
  end

  # Bad input on the command line or in a plan file (exit status 2).
  class UsageError < Error; end

  # A setup could not be run (failed to boot, failed verification, crashed).
  # The runner records it and moves on to the next setup.
  class SetupFailed < Error
    attr_reader :log_tail

    def initialize(message, log_tail: nil)
      super(message)
      @log_tail = log_tail
    end
  end

  # The run was interrupted by a signal (SIGINT, SIGTERM, SIGHUP); the CLI
  # exits 128 + signal number. A SignalException, not an Error: no phase that
  # rescues Error or StandardError (a failed warm-up, a failed boot) can
  # swallow it, so it always reaches the CLI; if it ever escaped, Ruby would
  # still end the process by that signal.
  class Interrupted < SignalException
    # The run directory that keeps the trials completed before the signal.
    attr_accessor :run_dir

    # The trial (Plan::Trial) the signal cut short: not stored, so a
    # resume measures it again (Runner::Measurement sets it).
    attr_accessor :trial

    def initialize(signo)
      super(signo, "interrupted by SIG#{Signal.signame(signo)}")
    end
  end
end
