# frozen_string_literal: true

require "test_helper"
require "rbconfig"
require "rackbench/system/proc_stat"
require "rackbench/process_control/child"

class ProcStatTest < Minitest::Test
  ROOT = File.expand_path("../../fixtures/proc", __dir__)
  Stat = Rackbench::System::ProcStat

  def test_reads_cpu_threads_and_rss_from_stat
    s = Stat.read(101, proc_root: ROOT)
    assert_equal 100, s.ppid
    assert_equal "S", s.state
    assert_equal 89_910, s.starttime
    assert_equal [120, 30], [s.utime_ticks, s.stime_ticks]
    assert_in_delta 150.0 / Stat.ticks_per_second, s.cpu_seconds, 1e-9
    assert_equal 9, s.threads
    assert_equal 6092 * Etc.sysconf(Etc::SC_PAGESIZE), s.rss_bytes
  end

  def test_comm_with_spaces_and_parentheses
    s = Stat.read(104, proc_root: ROOT)
    assert_equal "my (odd) name", s.comm
    assert_equal [7, 3, 4, 90_001], [s.utime_ticks, s.stime_ticks, s.threads, s.starttime]
  end

  def test_status
    assert_equal({ rss_bytes: 28_744 * 1024, threads: 1 }, Stat.status(100, proc_root: ROOT))
  end

  def test_vanished_process_is_nil
    assert_nil Stat.read(999, proc_root: ROOT)
    assert_nil Stat.status(104, proc_root: ROOT)
  end

  def test_reads_this_process
    s = Stat.read(Process.pid)
    assert_equal Process.ppid, s.ppid
    assert_operator s.threads, :>=, 1
    assert_operator s.rss_bytes, :>, 0
  end
end

class ProcStatHandlesTest < Minitest::Test
  Stat = Rackbench::System::ProcStat

  def test_rereads_open_files_and_returns_nil_once_the_process_is_gone
    handles = Stat::Handles.new
    child = Rackbench::ProcessControl::Child.spawn([RbConfig.ruby, "-e", "x = 0; loop { x += 1 }"])
    first = handles.read(child.pid)
    # A zombie keeps a readable stat whose CPU time no longer grows: a deadline, not a loop.
    wait_until(deadline: 10, what: "the busy child's CPU time to grow") { Stat.read(child.pid)&.cpu_seconds.to_f > first.cpu_seconds }
    assert_operator handles.read(child.pid).cpu_seconds, :>, first.cpu_seconds
    child.stop("KILL", timeout: 2)
    assert_nil handles.read(child.pid)
    assert_nil handles.read(child.pid)
  ensure
    child&.stop("KILL", timeout: 2)
    handles&.close
  end
end
