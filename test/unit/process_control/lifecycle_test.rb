# frozen_string_literal: true

require "test_helper"
require "socket"
require "rackbench/process_control/lifecycle"
require "rackbench/deadline"
require "rackbench/ports"

# The one lifecycle of a server or a proxy in front: boot, wait until ready
# (alive, answering, holding its own port) against a deadline, stop (the
# graceful signal, KILL after the timeout).
class LifecycleTest < Minitest::Test
  Lifecycle = Rackbench::ProcessControl::Lifecycle

  HTTP = 's = TCPServer.new("127.0.0.1", Integer(ARGV[0])); ' \
         'loop { c = s.accept; c.gets; c.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"); c.close }'

  def setup
    @port = Rackbench::Ports.free
    @life = Lifecycle.new(host: "127.0.0.1", port: @port)
  end

  def teardown
    @life.stop("KILL", timeout: 1)
  end

  def spawn(*argv)
    log = File.join(tmpdir, "child.log")
    @life.spawn(argv, env: { "RUBYOPT" => nil }, log_path: log, log_paths: [log])
  end

  def ruby(code, *args)
    spawn(RbConfig.ruby, "--disable-gems", "-rsocket", "-e", code, *args)
  end

  def test_ready_once_it_answers_on_its_own_port_then_stopped_by_its_signal
    child = ruby(HTTP, @port.to_s)
    assert_equal :ready, @life.wait_ready(Rackbench::Deadline.in(30), path: "/", every: 0.05, pids: -> { [child.pid] })
    assert @life.alive?
    @life.stop("TERM", timeout: 5)
    refute @life.alive?
    assert_equal "killed by SIGTERM", child.exit_summary
    refute child.forced?, "stopped by its own signal, in time"
  end

  def test_exited_when_the_process_is_gone
    ruby("exit 3")
    assert_equal :exited, @life.wait_ready(Rackbench::Deadline.in(30), path: "/", every: 0.05, pids: -> { [] })
    assert_equal "exited with status 3", @life.child.exit_summary
  end

  # A port another program holds is never the booted process answering:
  # late at the deadline, the owner's check run on each try meanwhile.
  def test_late_when_another_program_holds_the_port
    other = TCPServer.new("127.0.0.1", @port)
    child = spawn("sleep", "30")
    tries = 0
    outcome = @life.wait_ready(Rackbench::Deadline.in(0.3), path: "/", every: 0.05, pids: -> { [child.pid] }) { tries += 1 }
    assert_equal :late, outcome
    assert_operator tries, :>=, 1
    assert @life.alive?
  ensure
    other&.close
  end

  def test_the_owners_check_may_raise_to_end_the_wait
    spawn("sleep", "30")
    assert_raises(RuntimeError) { @life.wait_ready(Rackbench::Deadline.in(30), path: "/", every: 0.05, pids: -> { [] }) { raise "port taken" } }
  end

  def test_killed_when_the_graceful_signal_is_ignored
    child = ruby('trap("TERM") {}; $stdout.puts "trapped"; $stdout.flush; sleep 30')
    assert Rackbench::Deadline.in(30).wait_until(every: 0.05) { File.read(child.log_path).include?("trapped") }
    @life.stop("TERM", timeout: 0.3)
    refute @life.alive?
    assert_equal "killed by SIGKILL", child.exit_summary
    assert child.forced?, "the stop says it had to KILL (Runner::SlowStops warns of it)"
  end

  def test_stop_before_spawn_does_nothing
    assert_nil Lifecycle.new(host: "127.0.0.1", port: @port).stop("TERM", timeout: 1)
  end
end
