# frozen_string_literal: true

require "test_helper"
require "json"
require "rackbench/calibration"

# The CPU-speed calibration: real fresh Ruby processes (about 0.4 s), and
# the measuring frame storing one at the start and one at the end of a run.
class CalibrationTest < Minitest::Test
  Calibration = Rackbench::Calibration

  def test_fresh_processes_give_iterations_per_cpu_second
    log = File.join(tmpdir, "calibration.log")
    live = Rackbench::ProcessControl::Registry.live.size
    reading = Calibration.measure(log_path: log)
    assert_nil reading["error"], File.read(log)
    assert_operator reading["iterations_per_cpu_s"], :>, 0
    assert_equal Calibration::PROCESSES, reading["samples"].size
    assert_equal reading["samples"].sort[1], reading["iterations_per_cpu_s"], "the median of the processes"
    assert_operator reading["iterations_per_s"], :>, 0
    assert_operator reading["cpu_share"], :>, 0
    assert_operator reading["cpu_share"], :<=, 1.05
    assert_equal Rackbench::ProcessControl::Affinity.usable_cpus.first, reading["cpu"] if Rackbench::ProcessControl::Affinity.taskset?
    assert_equal aslr_as_calibration_runs_it, reading["aslr"], "what the calibration's processes ran with"
    lines = File.readlines(log).grep(/\A\{/).map { |l| JSON.parse(l) }
    assert_equal Calibration::PROCESSES, lines.size, "one line per fresh process"
    assert(lines.all? { |l| l["iterations"].positive? && l["cpu_s"].positive? })
    assert_equal live, Rackbench::ProcessControl::Registry.live.size, "every calibration process reaped"
  end

  # The truth, read apart from Calibration: a process started as it starts
  # one (setarch -R where setarch runs) has ADDR_NO_RANDOMIZE (0x0040000)
  # in its personality(2), or not.
  def aslr_as_calibration_runs_it
    out = IO.popen(["setarch", Etc.uname[:machine], "-R", "cat", "/proc/self/personality"], err: File::NULL, &:read)
    $?.success? && out.to_i(16).anybits?(0x0040000) ? "off" : "on"
  rescue SystemCallError
    "on"
  end

  # A fixed workload: twice as long a run gives about the same rate, not
  # twice the figure (loose bounds: this machine is shared).
  def test_the_rate_does_not_scale_with_the_duration
    log = File.join(tmpdir, "calibration.log")
    short = Calibration.measure(log_path: log, processes: 3, seconds: 0.05)["iterations_per_cpu_s"]
    long = Calibration.measure(log_path: log, processes: 3, seconds: 0.2)["iterations_per_cpu_s"]
    # A rate that scaled with the duration would read about 4.
    assert_includes 0.4..2.5, long / short, "#{short} vs #{long}"
  end

  # A kernel that refuses setarch -R (a container's seccomp): the reading is
  # taken without it, and says so. Here a setarch that always fails stands
  # in for the refusal.
  def test_a_refused_setarch_is_dropped
    bin = tmpdir
    File.write(File.join(bin, "setarch"), "#!/bin/sh\necho 'setarch: failed to set personality: Operation not permitted' >&2\nexit 1\n")
    File.chmod(0o755, File.join(bin, "setarch"))
    path = ENV.fetch("PATH")
    ENV["PATH"] = "#{bin}:#{path}"
    Calibration.instance_variable_set(:@setarch, nil)
    log = File.join(tmpdir, "calibration.log")
    reading = Calibration.measure(log_path: log, processes: 2, seconds: 0.05)
    assert_equal "on", reading["aslr"]
    assert_equal 2, reading["samples"].size, File.read(log)
    assert_includes File.read(log), "Operation not permitted", "the refusal is in the log"
  ensure
    ENV["PATH"] = path if path
    Calibration.instance_variable_set(:@setarch, nil)
  end

  def test_output_without_a_figure_is_no_reading
    assert_nil Calibration.parse("")
    assert_nil Calibration.parse("setarch: failed to set personality to x86_64: Operation not permitted\n")
    assert_nil Calibration.parse(%({"iterations":0,"wall_s":0.1,"cpu_s":0.1}\n))
    assert_equal 5, Calibration.parse(%(noise\n{"iterations":5,"wall_s":0.1,"cpu_s":0.09}\n))["iterations"]
  end

  # run (as capacity and tune, through CLI::Measuring) stores a calibration
  # at its start and one at its end, and the JSON report carries them.
  def test_a_run_stores_one_at_its_start_and_one_at_its_end
    out_dir = File.join(tmpdir, "run")
    status, _out, err = run_cli("run", "--engine", "fake", "--url", "http://127.0.0.1:9", "--no-verify", "-e", "/a", "-c", "1",
                                "-d", "1", "--warmup", "0", "-q", "-o", out_dir)
    assert_equal 0, status, err
    lines = File.readlines(File.join(out_dir, "calibration.jsonl")).map { |l| JSON.parse(l) }
    assert_equal %w[start end], lines.map { |l| l["phase"] }
    assert(lines.all? { |l| l["iterations_per_cpu_s"].positive? && l["at"] }, lines.inspect)
    status, json, = run_cli("report", out_dir, "--format", "json")
    assert_equal 0, status
    assert_equal %w[start end], JSON.parse(json)["calibration"].map { |l| l["phase"] }
  end
end
