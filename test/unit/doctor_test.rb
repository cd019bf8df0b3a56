# frozen_string_literal: true

require "test_helper"
require "rackbench/doctor"
require "rackbench/load"

class DoctorTest < Minitest::Test
  def fake_roots(loadavg: "0.01 0.02 0.03 1/100 1", swap_free: 1000, governor: "powersave")
    proc_root = tmpdir
    sys_root = tmpdir
    File.write(File.join(proc_root, "loadavg"), loadavg)
    File.write(File.join(proc_root, "meminfo"), "MemTotal: 1000 kB\nSwapTotal: 204800 kB\nSwapFree: #{swap_free} kB\n")
    gov = File.join(sys_root, "devices/system/cpu/cpu0/cpufreq")
    FileUtils.mkdir_p(gov)
    File.write(File.join(gov, "scaling_governor"), "#{governor}\n")
    [proc_root, sys_root]
  end

  def by_topic(doctor)
    doctor.findings.to_h { |f| [f.topic, f] }
  end

  def test_findings_say_what_to_do
    proc_root, sys_root = fake_roots(loadavg: "99.0 1 1 1/1 1")
    f = by_topic(Rackbench::Doctor.new(max_concurrency: 1_000_000, proc_root: proc_root, sys_root: sys_root,
                                       engine: Rackbench::Load::Fake.new(available: false)))
    assert_equal :fail, f["wrk"].level
    assert_match(/run bin\/setup/, f["wrk"].text)
    assert_equal :warn, f["cpu governor"].level
    assert_match(/performance/, f["cpu governor"].text)
    assert_equal :warn, f["swap"].level
    assert_match(/199 MiB in use/, f["swap"].text)
    assert_equal :warn, f["load"].level
    assert_equal :warn, f["open files"].level
    assert_match(/ulimit -n/, f["open files"].text)
  end

  # The other load programs (ab, siege, h2load) are each needed only for
  # their own --engine: missing is a warning naming the install, never a FAIL.
  def test_other_load_programs_are_listed
    proc_root, sys_root = fake_roots
    missing = Rackbench::Load::H2load.new(binary: File.join(tmpdir, "h2load"))
    f = by_topic(Rackbench::Doctor.new(proc_root: proc_root, sys_root: sys_root, engine: Rackbench::Load::Fake.new,
                                       engines: { "h2load" => missing, "fake" => Rackbench::Load::Fake.new }))
    assert_equal :warn, f["h2load"].level
    assert_equal "h2load not found on PATH: run bin/setup (or apt-get install nghttp2-client); needed only for " \
                 "--engine h2load", f["h2load"].text
    assert_equal :ok, f["fake"].level
    assert_equal "version 1.0.0", f["fake"].text
    topics = Rackbench::Doctor.new(proc_root: proc_root, sys_root: sys_root, engine: Rackbench::Load::Fake.new,
                                   noise: -> {}, orphans: -> { [] }).send(:engines).map(&:topic)
    assert_equal %w[ab siege h2load], topics, "one finding per program other than wrk, in the engines' order"
  end

  def test_quiet_machine_is_ok
    proc_root, sys_root = fake_roots(swap_free: 204_800, governor: "performance")
    f = by_topic(Rackbench::Doctor.new(max_concurrency: 4, proc_root: proc_root, sys_root: sys_root,
                                       engine: Rackbench::Load::Fake.new))
    %w[wrk cpu\ governor swap load open\ files].each { |t| assert_equal :ok, f[t].level, "#{t}: #{f[t].text}" }
  end
end
