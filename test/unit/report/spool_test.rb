# frozen_string_literal: true

require "test_helper"
require "stringio"
require "rackbench/report/spool"

# Text kept aside until its place in a rendering (the Markdown's reasons):
# a temporary file, gone after, or memory where none can be made.
class SpoolTest < Minitest::Test
  Spool = Rackbench::Report::Spool

  def lines = ["- /a c=8 puma: **below capacity**: 12 µs of CPU\n", "  - **not valid: ±20% × mean**\n", "last, no newline"]

  def test_what_was_written_is_copied_out_as_the_same_utf8_text
    out = StringIO.new
    path = nil
    Spool.open do |spool|
      path = spool.instance_variable_get(:@io).path
      lines.each { |l| spool.write(l) }
      out.write("before\n")
      spool.copy_to(out)
    end
    assert_equal "before\n#{lines.join}", out.string
    assert_equal Encoding::UTF_8, out.string.encoding
    assert out.string.valid_encoding?
    refute File.exist?(path), "the spool's temporary file is removed after the block"
  end

  def test_held_in_memory_when_no_temporary_file_can_be_made
    out = StringIO.new
    Tempfile.stub(:create, ->(*) { raise Errno::EACCES, "/tmp" }) do
      Spool.open do |spool|
        spool.write(lines[0], lines[1])
        spool.copy_to(out)
      end
    end
    assert_equal lines[0] + lines[1], out.string
  end
end
