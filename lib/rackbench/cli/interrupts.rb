# frozen_string_literal: true

require_relative "../error"
require_relative "../process_control/registry"
require_relative "../deadline"

module Rackbench
  module CLI
    # SIGINT, SIGTERM and SIGHUP while a command runs (CLI.call guards every
    # command).
    #
    # The first signal raises Interrupted in the main thread, so every ensure
    # runs: the load generator and the servers get their graceful stop and
    # completed trials stay on disk; the CLI then exits 128 + signal number
    # (130, 143, 129). Interrupted is not an Error, so no phase swallows it;
    # cleanup that must not be cut short (Child#stop, Registry.stop_all)
    # defers it with Thread.handle_interrupt.
    #
    # A later signal (Ctrl-C pressed again during a slow graceful stop) does
    # not raise again: it KILLs every process group rackbench started, at
    # once, and lets the unwinding finish, which is then quick; the exit
    # status stays the first signal's. Should the unwinding still not end
    # within KILLED_EXIT_S, the process exits anyway (with that status).
    class Interrupts
      SIGNALS = %w[INT TERM HUP].freeze
      KILLED_EXIT_S = 10

      def self.guard(err: $stderr, &block)
        new(err).guard(&block)
      end

      def initialize(err)
        @err = err
        @main = Thread.current
        @first = nil
      end

      def guard
        previous = SIGNALS.to_h { |sig| [sig, Signal.trap(sig) { |signo| received(signo) }] }
        yield
      ensure
        @watchdog&.kill
        previous&.each { |sig, handler| Signal.trap(sig, handler || "DEFAULT") }
      end

      private

      # Runs in the trap handler (the main thread, where no Mutex may be
      # locked: Registry.kill_all takes none).
      def received(signo)
        name = "SIG#{Signal.signame(signo)}"
        if @first.nil?
          @first = signo
          say "#{name}: stopping the servers gracefully; send it again to kill them at once" if ProcessControl::Registry.any_live?
          @main.raise(Interrupted.new(signo))
        else
          say "#{name} again: killing every process rackbench started"
          ProcessControl::Registry.kill_all
          @watchdog ||= Thread.new { exit_after_kill }
        end
      end

      # The last resort: if the main thread's cleanup has not ended the
      # process within KILLED_EXIT_S, KILL everything left once more and wait
      # (up to DRAIN_S) until no group rackbench started has a live member,
      # then exit: rackbench never leaves before what it started is gone.
      DRAIN_S = 5

      def exit_after_kill
        sleep KILLED_EXIT_S
        Rackbench::Deadline.in(DRAIN_S).wait_until(every: 0.1) do
          ProcessControl::Registry.kill_all
          !ProcessControl::Registry.anything_left?
        end
        say "Interrupted by SIG#{Signal.signame(@first)}: processes killed; cleanup did not finish within #{KILLED_EXIT_S} s"
        exit!(128 + @first)
      end

      def say(line)
        @err.puts line
      rescue IOError, SystemCallError
        nil # a closed terminal (SIGHUP) must not turn the interrupt into another error
      end
    end
  end
end
