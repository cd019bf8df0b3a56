# frozen_string_literal: true

require_relative "fault_helper"
require_relative "../unit/report/run_fixture"

# Output that cannot be written: a reader that stops early (| head), a full
# disk on stdout. Never exit 0 for what was not delivered, never a gate
# passed by accident.
class FaultOutputTest < Minitest::Test
  F = Rackbench::RunFixture

  # 400 cells (100 endpoints x 4 levels), req/s scaled; 6 repetitions within
  # 0.5%, so that two alike runs are decided equivalent (the gate passes)
  # even with each of the family's 400 intervals at 1 - 0.05/400.
  def stored_run(name, scale)
    trials = (1..100).flat_map do |i|
      [1, 8, 16, 32].flat_map do |c|
        F.repetitions([995, 1000, 1005, 998, 1002, 1000].map { |v| v * scale }, setup: "puma x2:3", endpoint: "/e#{i}", concurrency: c)
      end
    end
    F.write(File.join(tmpdir, name), trials: trials)
  end

  # Starts rackbench with stdout (and with merge, stderr) into a pipe, reads
  # `lines` lines and closes the pipe, as `| head -N` does.
  def start_into_head(*args, lines:, merge: false)
    reader, writer = IO.pipe
    start_rackbench(*args, stdout: writer, **(merge ? { stderr: [:child, :out] } : {}))
    writer.close
    read = Array.new(lines) { reader.gets }
    reader.close
    read
  end

  def test_a_gate_read_through_head_keeps_its_status
    a = stored_run("a", 1.0)
    b = stored_run("b", 0.5)
    start_into_head("compare", a, b, "--fail-if-slower", "5", lines: 1)
    assert_fault_outcome(exit_code: 1, message: /\ASlower: #{b} is decided slower than #{a} by more than 5% in 400 cell\(s\)/)
    start_into_head("compare", a, stored_run("same", 1.0), "--fail-if-slower", "5", lines: 1)
    assert_fault_outcome(exit_code: 1, silent: "a closed pipe is silent (STYLE.md); the status says what was not delivered")
  end

  def test_a_run_cut_short_by_head_is_not_a_success
    out = File.join(tmpdir, "run")
    run = ["run", "-s", "puma x1:4", "-s", "unicorn x2", "-e", "/pause/0.05", "-c", "2,4", "-d", "1", "--warmup", "0"]
    read = start_into_head(*run, "-o", out, lines: 2, merge: true)
    assert_equal 2, read.compact.size
    assert_fault_outcome(exit_code: 1, silent: "stdout and stderr are the closed pipe: the status alone can tell")
  end

  def test_a_report_to_a_full_disk_is_an_error
    start_rackbench("report", stored_run("a", 1.0), stdout: "/dev/full")
    assert_fault_outcome(exit_code: 1, message: /\AError: could not write the output \(No space left on device\)/)
  end
end
