# frozen_string_literal: true

require "test_helper"
require "rackbench/cli"
require_relative "../report/run_fixture"

# A write to stdout or stderr that fails (a reader that stopped: EPIPE; a
# full disk: ENOSPC) is never exit 0: 1, or compare's gate status when the
# gate had decided; silent on a closed pipe, one line otherwise.
class CliOutputFailedTest < Minitest::Test
  F = Rackbench::RunFixture
  CELL = { setup: "puma x2:3", endpoint: "/hello", concurrency: 8 }.freeze

  # A stream that takes `room` bytes, then fails every write with error.
  class Closing < StringIO
    def initialize(room, error)
      super(+"")
      @room = room
      @error = error
    end

    def write(*parts)
      text = parts.join
      raise @error if string.bytesize + text.bytesize > @room

      super
    end
  end

  def cli(argv, out:, err: StringIO.new)
    [Rackbench::CLI.call(argv, out: out, err: err, env: ENV.to_h), err.string]
  end

  def runs(b_values)
    [[980, 1000, 1020], b_values].each_with_index.map do |values, i|
      F.write(File.join(tmpdir, "run#{i}"), trials: F.repetitions(values, **CELL))
    end
  end

  def test_a_gate_cut_short_by_a_closed_pipe_keeps_its_status_and_says_it
    { [590, 600, 610] => [1, /\ASlower: /], [700, 1300, 1000] => [3, /\AUndecided: /] }.each do |b, (code, line)|
      a, b = runs(b)
      status, err = cli(["compare", a, b, "--fail-if-slower", "5"], out: Closing.new(10, Errno::EPIPE))
      assert_equal code, status, err
      assert_match line, err, "the gate's line on stderr, which can still be written"
      assert_equal 1, err.lines.size, "silent about the closed pipe itself: #{err}"
    end
  end

  def test_a_passing_gate_whose_report_was_not_written_is_not_a_pass
    a, b = runs([985, 1000, 1015])
    assert_equal 0, cli(["compare", a, b, "--fail-if-slower", "20"], out: StringIO.new).first, "passes when written"
    status, err = cli(["compare", a, b, "--fail-if-slower", "20"], out: Closing.new(10, Errno::EPIPE))
    assert_equal 1, status
    assert_equal "", err
  end

  def test_a_full_disk_on_stdout_or_stderr_is_exit_1_with_one_line
    a, = runs([985, 1000, 1015])
    status, err = cli(["report", a], out: Closing.new(100, Errno::ENOSPC))
    assert_equal 1, status
    assert_equal "Error: could not write the output (No space left on device), so it is incomplete; write it where " \
                 "there is space, or to a terminal, and run again\n", err
    status, = cli(["--version"], out: Closing.new(0, Errno::ENOSPC), err: Closing.new(0, Errno::ENOSPC))
    assert_equal 1, status, "nothing could be said, the status tells"
  end

  # Ruby buffers stdout into a file: /dev/full fails at the flush, which the CLI does itself.
  def test_the_final_flush_is_checked
    full = File.open("/dev/full", "w")
    status, err = cli(["--version"], out: full)
    assert_equal 1, status
    assert_match(/\AError: could not write the output \(No space left on device\)/, err)
  ensure
    begin
      full&.close
    rescue Errno::ENOSPC
      nil # what is still buffered fails again at close
    end
  end
end
