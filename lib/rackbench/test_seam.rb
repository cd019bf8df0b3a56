# frozen_string_literal: true

module Rackbench
  # A seam for the signal tests (test/integration/signals_test.rb) and
  # nothing else: with RACKBENCH_TEST_HOLD=PHASE in the environment, rackbench
  # prints "test seam: holding in PHASE" on stderr when it reaches PHASE and
  # sleeps there for up to HOLD_S, so a test can send a real signal in a
  # phase too short to hit from outside. Unset, it does nothing.
  #
  # Phases: between_setups (after a setup's server is stopped, before the
  # next boots) and report (before report.html is written).
  module TestSeam
    VARIABLE = "RACKBENCH_TEST_HOLD"
    PHASES = %i[between_setups report].freeze
    HOLD_S = 30

    module_function

    def hold(phase, err: $stderr, env: ENV)
      raise ArgumentError, "unknown test seam phase #{phase.inspect}" unless PHASES.include?(phase)
      return unless env[VARIABLE] == phase.to_s

      err.puts "test seam: holding in #{phase}"
      sleep HOLD_S
    end
  end
end
