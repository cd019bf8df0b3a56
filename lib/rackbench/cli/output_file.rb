# frozen_string_literal: true

module Rackbench
  module CLI
    # The file `report --output FILE` writes, opened ("w") at the first
    # write: a format streams its rendering into it (Report::Formats#write),
    # and one that fails before it writes (a damaged run directory) leaves
    # the file as it was, as when the whole rendering was one String. A
    # rendering that ends having written nothing leaves an empty file.
    class OutputFile
      def self.open(path)
        file = new(path)
        yield file
        file.write("")
      ensure
        file&.close
      end

      def initialize(path)
        @path = path
        @file = nil
      end

      def write(*texts) = file.write(*texts)
      def puts(*lines) = file.puts(*lines)

      def close
        @file&.close
      end

      private

      def file
        @file ||= File.open(@path, "w")
      end
    end
  end
end
