# frozen_string_literal: true

require "test_helper"
require "rackbench/system/memory"

class MemoryTest < Minitest::Test
  ROOT = File.expand_path("../../fixtures/proc", __dir__)
  Memory = Rackbench::System::Memory

  def test_reads_smaps_rollup
    m = Memory.read(100, proc_root: ROOT)
    assert_equal 28_744 * 1024, m.rss
    assert_equal 9850 * 1024, m.pss
    assert_equal (48 + 2852) * 1024, m.uss
  end

  def test_falls_back_to_summing_smaps
    m = Memory.read(103, proc_root: ROOT)
    assert_equal 11_692 * 1024, m.rss
    assert_equal 5525 * 1024, m.pss
    assert_equal 2400 * 1024, m.uss
  end

  def test_vanished_process_is_nil
    assert_nil Memory.read(104, proc_root: ROOT)
    assert_nil Memory.read(999, proc_root: ROOT)
  end

  def test_pss_of_a_forked_server_sums_below_rss
    all = [100, 101, 102].map { |pid| Memory.read(pid, proc_root: ROOT) }
    assert_operator all.sum(&:pss), :<, all.sum(&:rss) / 2
  end

  def test_reads_this_process
    m = Memory.read(Process.pid)
    assert_operator m.pss, :>, 0
    assert_operator m.pss, :<=, m.rss
    assert_operator m.uss, :<=, m.pss
  end
end
