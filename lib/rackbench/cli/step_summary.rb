# frozen_string_literal: true

require_relative "../error"

module Rackbench
  module CLI
    # $GITHUB_STEP_SUMMARY, the file GitHub Actions shows as a job's summary
    # page: text appended to it. Opened O_NONBLOCK, and written only when it
    # is a file (or a device: /dev/null); a FIFO, socket or directory is one
    # warning, never a run that waits for good before its gate's sentence.
    module StepSummary
      WRITABLE = %w[file characterSpecial].freeze

      module_function

      def append(path, text, err:)
        type = File.exist?(path) ? File.stat(path).ftype : "file"
        return not_a_file(path, type, err) unless WRITABLE.include?(type)

        File.open(path, File::WRONLY | File::APPEND | File::CREAT | File::NONBLOCK) do |f|
          type = f.stat.ftype
          WRITABLE.include?(type) ? f.write(text) : not_a_file(path, type, err)
        end
      rescue Errno::ENXIO # a FIFO (no reader) or a socket put there after the check
        not_a_file(path, "fifo", err)
      rescue SystemCallError, IOError => e
        err.puts "Warning: could not write the job summary to $GITHUB_STEP_SUMMARY (#{path}): #{Error.reason(e)}"
      end

      def not_a_file(path, type, err)
        err.puts "Warning: $GITHUB_STEP_SUMMARY (#{path}) is a #{type}, not a file: the job summary was not written; " \
                 "point it at a file"
      end
    end
  end
end
