# frozen_string_literal: true

require "test_helper"
require "rackbench/process_control/log_cap"

class LogCapTest < Minitest::Test
  def cap(path)
    Rackbench::ProcessControl::LogCap.new(path, limit: 1000, head: 100, tail: 200, interval: 0.01)
  end

  def test_a_log_over_the_limit_keeps_its_head_and_its_tail_with_a_marker
    path = File.join(tmpdir, "server.log")
    File.write(path, "H" * 100 + "m" * 5000 + "T" * 200)
    c = cap(path)
    c.check
    text = File.binread(path)
    assert text.start_with?("H" * 100), "the head is kept"
    assert text.end_with?("T" * 200), "the tail is kept"
    refute_includes text, "m", "the middle is gone"
    assert_match(/\[rackbench: 5000 bytes of this log cut here/, text)
    assert_equal 5000, c.cut_bytes
  end

  def test_a_log_under_the_limit_is_left_alone
    path = File.join(tmpdir, "server.log")
    File.write(path, "x" * 1000)
    cap(path).check
    assert_equal "x" * 1000, File.read(path)
  end

  def test_a_writer_appending_meanwhile_keeps_appending_at_the_end
    path = File.join(tmpdir, "server.log")
    writer = File.open(path, "a")
    writer.sync = true
    c = cap(path).start
    2000.times { |i| writer.write("line #{i}\n") }
    sleep 0.05
    c.stop
    writer.write("last line\n")
    text = File.read(path)
    assert_operator text.bytesize, :<=, 1000 + 200, "capped: #{text.bytesize} bytes"
    assert text.start_with?("line 0\n"), "the first lines are kept"
    # (a line written between a cut's reading of the tail and its truncation
    # is lost with the middle, so the last loop line is not asserted)
    assert text.end_with?("\nlast line\n"), "the writer's later appends land at the new end"
    assert_match(/line 19\d\d\n/, text, "the tail holds the last lines of the loop")
  ensure
    writer&.close
  end

  def test_a_missing_file_is_no_error
    c = cap(File.join(tmpdir, "none.log"))
    c.check
    assert_equal 0, c.cut_bytes
  end

  # A link at a log's name is never cut through (issue 46): what it leads
  # to keeps every byte.
  def test_a_link_at_a_logs_name_is_left_alone
    victim = File.join(tmpdir, "victim.log")
    File.write(victim, "v" * 5000)
    path = File.join(tmpdir, "server.log")
    File.symlink(victim, path)
    c = cap(path)
    c.check
    assert_equal ["v" * 5000, 0], [File.read(victim), c.cut_bytes]
  end

  def test_head_and_tail_must_fit_under_the_limit
    assert_raises(ArgumentError) { Rackbench::ProcessControl::LogCap.new("x", limit: 100, head: 60, tail: 50) }
  end
end
