# frozen_string_literal: true

require "test_helper"
require "rackbench/runner/slow_stops"
require "rackbench/plan/setup"

# A server KILLed once its graceful signal's --stop-timeout ran out: one
# warning per setup for the run, naming the signal, the time and the option.
class SlowStopsTest < Minitest::Test
  Adapter = Struct.new(:graceful_signal)
  Instance = Struct.new(:forced_stop?, :stop_timeout, :adapter)

  def instance(forced, signal = "TERM") = Instance.new(forced, 10.0, Adapter.new(signal))

  def test_a_forced_stop_is_said_once_per_setup
    stops = Rackbench::Runner::SlowStops.new
    puma = Rackbench::Setup.parse("puma x2:5")
    text = stops.warning_once(puma, instance(true))
    assert_equal "puma x2:5: did not stop within 10 s of SIGTERM (--stop-timeout): rackbench KILLed it; an app that " \
                 "traps TERM costs that long at every stop of this setup; let the app exit on TERM, or lower --stop-timeout",
                 text
    assert_nil stops.warning_once(puma, instance(true)), "the next repetition's stop is not said again"
    assert_match(/\Aunicorn x2: did not stop within 10 s of SIGQUIT .* traps QUIT /,
                 stops.warning_once(Rackbench::Setup.parse("unicorn x2"), instance(true, "QUIT")))
  end

  def test_silent_when_stopped_in_time_or_not_booted
    stops = Rackbench::Runner::SlowStops.new
    puma = Rackbench::Setup.parse("puma x2:5")
    assert_nil stops.warning_once(puma, instance(false))
    assert_nil stops.warning_once(puma, nil), "--url: nothing booted"
  end
end
