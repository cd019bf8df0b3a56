# frozen_string_literal: true

require "test_helper"
require "rackbench/cli/output_file"

# report --output streams into a file opened at its first write (issue 35).
class OutputFileTest < Minitest::Test
  def test_written_as_it_comes
    path = File.join(tmpdir, "r.txt")
    Rackbench::CLI::OutputFile.open(path) do |f|
      f.write("a", "b")
      f.puts "c"
    end
    assert_equal "abc\n", File.read(path)
  end

  def test_a_rendering_that_fails_before_writing_leaves_the_file_as_it_was
    path = File.join(tmpdir, "r.txt")
    File.write(path, "the last report")
    assert_raises(RuntimeError) { Rackbench::CLI::OutputFile.open(path) { raise "damaged run" } }
    assert_equal "the last report", File.read(path)
  end

  def test_a_rendering_of_nothing_leaves_an_empty_file
    path = File.join(tmpdir, "r.txt")
    File.write(path, "the last report")
    Rackbench::CLI::OutputFile.open(path) { nil }
    assert_equal "", File.read(path)
  end
end
