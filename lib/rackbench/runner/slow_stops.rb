# frozen_string_literal: true

module Rackbench
  class Runner
    # Servers that had to be KILLed at their stop: still running when their
    # graceful signal's --stop-timeout ran out (ServerInstance#forced_stop?),
    # most often an app that traps or ignores that signal. Each such stop
    # costs the whole timeout, at every boot of the setup, unseen in any
    # figure: said once per setup for the run.
    class SlowStops
      def initialize
        @said = {}
      end

      # The warning after instance stopped (nil: stopped in time, not
      # booted, or already said for setup).
      def warning_once(setup, instance)
        return nil unless instance&.forced_stop?
        return nil if @said[setup.label]

        @said[setup.label] = true
        sig = instance.adapter.graceful_signal
        "#{setup.label}: did not stop within #{format('%g', instance.stop_timeout)} s of SIG#{sig} (--stop-timeout): " \
          "rackbench KILLed it; an app that traps #{sig} costs that long at every stop of this setup; " \
          "let the app exit on #{sig}, or lower --stop-timeout"
      end
    end
  end
end
