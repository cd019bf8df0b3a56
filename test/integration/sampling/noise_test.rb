# frozen_string_literal: true

require "test_helper"
require "rackbench/sampling/noise"
require "rackbench/process/child"
require "rackbench/cli"
require "rackbench/doctor"

# The noise check against a real CPU hog: a busy loop that rackbench did not
# start is named with its CPU share, `rackbench doctor` warns about it, and
# the same loop started by rackbench itself counts as ours, not foreign.
class NoiseTest < Minitest::Test
  HOG = ["ruby", "-e", "Process.setsid rescue nil; loop { }"].freeze

  def teardown
    @hog&.stop("KILL", timeout: 2)
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

  def test_doctor_prints_the_quiet_line
    status, out, _err = run_cli("doctor")
    assert_includes [0, 1], status
    assert_match(/^(ok  |WARN)  quiet\s+other processes used \d+% of a core over \d\.\d s/, out)
  end
end
