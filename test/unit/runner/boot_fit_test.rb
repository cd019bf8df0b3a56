# frozen_string_literal: true

require "test_helper"
require "tempfile"
require "rackbench/runner/boot_fit"

# --boot together's memory check: measured footprints, doubled, against
# MemAvailable.
class BootFitTest < Minitest::Test
  FIT = Rackbench::Runner::BootFit
  MIB = 1024 * 1024

  def trials
    [{ "setup" => "a", "memory" => { "pss_total_max_mb" => 100.0 } }, { "setup" => "a", "memory" => { "pss_total_max_mb" => 120.0 } },
     { "setup" => "b", "memory" => { "pss_total_max_mb" => 80.0 } }, { "setup" => "b" }]
  end

  def test_twice_the_largest_footprints_against_what_is_available
    fit = FIT.call(trials, %w[a b], available_bytes: 400 * MIB)
    assert fit.together
    assert_equal [400, 400], [fit.need_mb, fit.available_mb]
    assert_match(/2.0x their measured footprint 200 MiB fits in 400 MiB available/, fit.reason)
    refute FIT.call(trials, %w[a b], available_bytes: 399 * MIB).together
  end

  def test_a_setup_never_measured_or_an_unknown_machine_means_apart
    fit = FIT.call(trials, %w[a c], available_bytes: 10_000 * MIB)
    refute fit.together
    assert_equal "no footprint measured yet for c", fit.reason
    refute FIT.call(trials, %w[a b], available_bytes: nil).together
  end

  def test_mem_available_is_read_from_meminfo
    Tempfile.create("meminfo") do |f|
      f.write("MemTotal:       24000000 kB\nMemFree:        100 kB\nMemAvailable:   2048 kB\n")
      f.flush
      assert_equal 2048 * 1024, Rackbench::System::Memory.available(meminfo: f.path)
    end
    assert_nil Rackbench::System::Memory.available(meminfo: "/nonexistent/meminfo")
    assert_operator Rackbench::System::Memory.available, :>, 0, "this machine's"
  end
end
