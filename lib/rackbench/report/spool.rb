# frozen_string_literal: true

require "tempfile"
require "stringio"

module Rackbench
  module Report
    # Text a rendering makes before its place in the output comes, kept
    # aside until then: in a temporary file, so a huge run's part (the
    # Markdown's reasons of 100,000 cells: ~115 MB) is never held in
    # memory, and written out a line at a time where it belongs
    # (#copy_to). Where no temporary file can be made, it is held in memory.
    class Spool
      # Yields a new Spool; its file is gone after the block.
      def self.open
        file = begin
          Tempfile.create("rackbench-spool", binmode: true)
        rescue SystemCallError
          return yield new(StringIO.new(String.new(encoding: Encoding::BINARY)))
        end
        begin
          yield new(file)
        ensure
          file.close
          File.unlink(file.path) if File.exist?(file.path)
        end
      end

      def initialize(io)
        @io = io
      end

      def write(*texts) = @io.write(*texts)

      # What was written so far into out, a line at a time, as the UTF-8
      # text it was written as.
      def copy_to(out)
        @io.rewind
        @io.each_line { |line| out.write(line.force_encoding(Encoding::UTF_8)) }
      end
    end
  end
end
