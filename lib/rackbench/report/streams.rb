# frozen_string_literal: true

require "stringio"

module Rackbench
  module Report
    # The one String of a streamed rendering. A renderer writes into an IO
    # as it goes (#write(io): Html, Markdown, JsonDoc, a streaming format's
    # block); a caller that needs the whole text (a test, the table `run`
    # prints and quotes again, the Markdown of a job's summary) asks for it
    # here, and a file is written through the same #write (Formats.save,
    # `report -o`), never through this String.
    module Streams
      # What the block writes into the IO it is given, as one String.
      def self.string
        io = StringIO.new
        yield io
        io.string
      end

      # For a renderer with #write(io): its rendering as one String.
      def render = Streams.string { |io| write(io) }
    end
  end
end
