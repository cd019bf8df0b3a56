# frozen_string_literal: true

require_relative "../../error"

module Rackbench
  class Runner
    class Session
      # Whether what a session booted is still running: checked around each
      # trial and after a failed verification, so a server (or the proxy in
      # front) that died fails the setup with its exit, not with the trial's
      # or the check's errors.
      module Liveness
        module_function

        # Raises SetupFailed when the proxy in front or the server died
        # (either may be nil: not booted).
        def check!(setup, instance, front)
          raise SetupFailed, "#{setup.label}: #{setup.front} died during the run (#{front.child.exit_summary})" if front && !front.alive?
          return if instance.nil? || instance.alive?

          raise SetupFailed.new("#{setup.label}: server died during the run (#{instance.child.exit_summary}); " \
                                "see #{instance.log_path}", log_tail: instance.log_tail)
        end
      end
    end
  end
end
