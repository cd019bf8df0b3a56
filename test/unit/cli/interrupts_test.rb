# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "rackbench/cli/interrupts"
require "rackbench/process_control/child"
require "rackbench/clock"

# The interrupt guard with real signals sent to this test process.
class InterruptsTest < Minitest::Test
  def guard(&block)
    @err = StringIO.new
    Rackbench::CLI::Interrupts.guard(err: @err, &block)
  end

  def test_the_first_signal_gets_past_every_rescue_a_phase_has
    error = assert_raises(Rackbench::Interrupted) do
      guard do
        begin
          Process.kill("TERM", Process.pid)
          sleep 5
        rescue Rackbench::Error, StandardError => e # what phases rescue (a failed warm-up, a failed boot)
          flunk "a phase swallowed the interrupt: #{e.inspect}"
        end
      end
    end
    assert_equal 15, error.signo
    assert_equal "interrupted by SIGTERM", error.message
  end

  def test_sighup_is_guarded_too_and_handlers_are_restored_after
    before = Signal.trap("HUP", "DEFAULT")
    error = assert_raises(Rackbench::Interrupted) do
      guard do
        Process.kill("HUP", Process.pid)
        sleep 5
      end
    end
    assert_equal 1, error.signo
    assert_equal "DEFAULT", Signal.trap("HUP", before || "DEFAULT"), "the guard put the previous handler back"
  end

  def test_a_hang_up_exits_129_though_the_terminal_is_gone
    require "rackbench/cli"
    gone = Object.new
    def gone.puts(*) = raise(Errno::EIO)
    assert_equal 129, Rackbench::CLI.interrupted(Rackbench::Interrupted.new(1), "run", gone)
  end

  # A child that ignores TERM stops slowly (KILL after the timeout); a second
  # signal meanwhile KILLs its group at once instead of raising again.
  def test_a_second_signal_during_a_slow_stop_kills_the_group_instead_of_raising
    child = Rackbench::ProcessControl::Child.spawn([RbConfig.ruby, "-e", 'trap("TERM") {}; puts :ready; $stdout.flush; sleep 60'],
                                                   log_path: File.join(tmpdir, "child.log"))
    wait_until(deadline: 10, what: "the child to print ready") { File.read(child.log_path).include?("ready") }
    elapsed = nil
    assert_raises(Rackbench::Interrupted) do
      guard do
        Process.kill("INT", Process.pid)
        sleep 5
      ensure
        Thread.new { sleep 0.5; Process.kill("INT", Process.pid) }
        started = Rackbench::Clock.now
        child.stop("TERM", timeout: 30)
        elapsed = Rackbench::Clock.now - started
      end
    end
    assert_operator elapsed, :<, 3, "the second SIGINT killed the child, not the 30 s timeout"
    assert_equal 9, child.status.termsig
    assert_match(/\ASIGINT: stopping the servers gracefully; send it again to kill them at once\n/, @err.string)
    assert_includes @err.string, "SIGINT again: killing every process rackbench started\n"
  end
end
