# frozen_string_literal: true

require "test_helper"
require "rackbench/sampling/noise"
require "rackbench/process_control/child"
require "rackbench/cli"
require "rackbench/doctor"

# The noise check against a real CPU hog: a busy loop that rackbench did not
# start is named with its CPU share, `rackbench doctor` warns about it, and
# the same loop started by rackbench itself counts as ours, not foreign.
class NoiseTest < Minitest::Test
  HOG = ["ruby", "-e", "Process.setsid rescue nil; loop { }"].freeze

  def teardown
    @hog&.stop("KILL", timeout: 1)
    super
  end

  # A hog outside rackbench's tree: spawned, then measured as if rackbench
  # were another process (root: a pid that has no children).
  def test_a_foreign_hog_is_named_and_doctor_warns
    @hog = Rackbench::ProcessControl::Child.spawn(HOG)
    sleep 0.2
    reading = Rackbench::Sampling::Noise.measure(window: 0.6, root: 1 << 30)
    hog = reading.top.find { |b| b.pid == @hog.pid }
    assert hog, "the hog is among the busiest: #{reading.describe}"
    assert_operator hog.cpu_pct, :>, 50, "a busy loop takes most of a core"
    assert_operator reading.foreign_pct, :>=, hog.cpu_pct - 10
    refute reading.quiet?
    assert_match(/\Athe machine is not quiet: other processes used \d+% of a core over \d\.\d s: .*#{@hog.pid} ruby/, reading.warning)

    doctor = Rackbench::Doctor.new(noise: -> { Rackbench::Sampling::Noise.measure(window: 0.6, root: 1 << 30) })
    quiet = doctor.findings.find { |f| f.topic == "quiet" }
    assert_equal :warn, quiet.level
    assert_match(/#{@hog.pid} ruby \d+%.*--cpus auto/, quiet.text)
  end

  def test_processes_rackbench_started_count_as_its_own
    @hog = Rackbench::ProcessControl::Child.spawn(HOG)
    sleep 0.2
    reading = Rackbench::Sampling::Noise.measure(window: 0.6)
    assert_operator reading.ours_pct, :>, 50, "the hog is a descendant of this process"
    refute(reading.top.any? { |b| b.pid == @hog.pid })
  end

  # A busy loop outside this process's tree (its parent exits at once, so it
  # is re-parented away from us) but inside a process group the test owns:
  # stopping that group in teardown ends it.
  FOREIGN_HOG = ["ruby", "-e", "fork { loop { } }"].freeze

  def foreign_hog
    @hog = Rackbench::ProcessControl::Child.spawn(FOREIGN_HOG)
    assert @hog.wait(10), "the hog's parent exits at once"
    hog = nil
    10.times { (hog = Rackbench::System::ProcessTree.all.find { |e| e.pgid == @hog.pid }) ? break : sleep(0.05) }
    refute_nil hog, "the busy loop runs"
    refute_equal Process.pid, hog.ppid, "and is not ours"
    hog
  end

  # `rackbench doctor` as a command: its quiet check forced to a warning by a
  # foreign hog. A warning never fails doctor: with wrk on PATH (no FAIL
  # finding possible without --load-host) it exits 0.
  def test_doctor_warns_of_a_foreign_hog_and_exits_0
    require_tool!("wrk")
    foreign_hog
    sleep 0.2
    status, out, err = run_cli("doctor")
    assert_equal 0, status, out + err
    assert_match(/^WARN  quiet\s+other processes used \d+% of a core over \d\.\d s: .*: they take CPU from the server/, out)
    assert_match(/^ok    wrk\s+version \d/, out)
    assert_empty out.lines.grep(/^FAIL/)
  end
end
