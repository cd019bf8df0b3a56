# frozen_string_literal: true

require "test_helper"
require "rackbench/store/regular_file"

# Store::RegularFile never blocks on a FIFO put where a run file belongs.
class RegularFileTest < Minitest::Test
  RF = Rackbench::Store::RegularFile
  FLAGS = File::WRONLY | File::APPEND | File::CREAT

  def test_a_fifo_is_refused_at_once_in_one_line
    path = File.join(tmpdir, "samples.jsonl")
    File.mkfifo(path)
    opener = Thread.new { RF.open(path, FLAGS) { |f| f.write("x") } rescue $! }
    assert opener.join(10), "opening a FIFO with no reader blocked (10 s deadline)"
    assert_kind_of Rackbench::Error, opener.value
    assert_equal "#{path} is not a regular file (fifo); a run directory holds regular files only: remove it " \
                 "(or restore the file) and run again", opener.value.message
  ensure
    opener&.kill
  end

  def test_regular_files_and_character_devices_open
    path = File.join(tmpdir, "trials.jsonl")
    RF.open(path, FLAGS) { |f| f.write("a\n") }
    RF.open(path, FLAGS) { |f| f.write("b\n") }
    assert_equal "a\nb\n", File.read(path)
    assert_equal 2, RF.open(File::NULL, File::WRONLY) { |f| f.write("ab") }
    assert_raises(Rackbench::Error) { RF.open(tmpdir, File::RDONLY) }
  end
end
