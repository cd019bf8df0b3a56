# frozen_string_literal: true

require_relative "../process_control/error_line"

module Rackbench
  class Runner
    # The app's own words for the server errors of one trial: the last line
    # naming an error (ProcessControl::ErrorLine.last: an exception and its
    # message, not a backtrace frame) that the server's log gained during the
    # trial, so a cell whose requests got 500s says what the app raised
    # ("NoMethodError: undefined method ...") instead of "status 57".
    # Reads at most TAIL_BYTES of what the trial wrote: a server logging every
    # request can write a lot, and the last error is at its end.
    class AppError
      TAIL_BYTES = ProcessControl::ErrorLine::TAIL_BYTES

      # path: the server's log; nil (no log) quotes nothing.
      def initialize(path)
        @path = path
        @from = path ? (File.size?(path) || 0) : 0
      end

      # The quote, or nil when the log gained no error line.
      def line
        return nil unless @path

        File.open(@path, "rb") do |f|
          f.seek([@from, f.size - TAIL_BYTES].max)
          ProcessControl::ErrorLine.last(f.read.to_s.force_encoding(Encoding::UTF_8).scrub)
        end
      rescue SystemCallError
        nil
      end
    end
  end
end
