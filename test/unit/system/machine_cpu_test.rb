# frozen_string_literal: true

require "test_helper"
require "rackbench/system/machine_cpu"
require "rackbench/sampling/noise"

class MachineCpuTest < Minitest::Test
  # cpu user nice system idle iowait irq softirq steal guest guest_nice
  def stat(user, idle, steal)
    "cpu  #{user} 0 0 #{idle} 0 0 0 #{steal} 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n"
  end

  def test_busy_includes_steal_and_steal_is_reported_on_its_own
    root = tmpdir
    cpu = Rackbench::System::MachineCpu.new(proc_root: root, cores: 2)
    File.write(File.join(root, "stat"), stat(1000, 1000, 100))
    cpu.start
    # 200 jiffies passed over 2 CPUs: 100 user, 60 idle, 40 steal
    File.write(File.join(root, "stat"), stat(1100, 1060, 140))
    cpu.stop
    assert_in_delta 140.0, cpu.busy_pct, 1e-9, "(100 + 40) / 200 x 2 cores"
    assert_in_delta 40.0, cpu.steal_pct, 1e-9
  end

  def test_a_trials_foreign_cpu_leaves_out_the_hypervisors_share
    record = { "machine" => { "cpu_pct" => 150.0, "steal_pct" => 30.0 }, "cpu" => { "server_pct" => 80.0, "client_pct" => 20.0 } }
    assert_in_delta 15.0, Rackbench::Sampling::Noise.foreign_pct(record, 5.0), 1e-9
  end

  def test_steal_makes_a_machine_not_quiet_and_is_named
    reading = Rackbench::Sampling::Noise::Reading.new(window_s: 0.5, machine_pct: 40.0, ours_pct: 0.0, foreign_pct: 2.0,
                                                      steal_pct: 38.0, top: [])
    refute reading.quiet?
    assert_match(/the hypervisor took 38% of a core \(steal time\)/, reading.describe)
    assert Rackbench::Sampling::Noise::Reading.new(window_s: 0.5, machine_pct: 4.0, ours_pct: 0.0, foreign_pct: 2.0,
                                                   steal_pct: 1.0, top: []).quiet?
  end
end
