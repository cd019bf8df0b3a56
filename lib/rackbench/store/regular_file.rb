# frozen_string_literal: true

require_relative "../error"

module Rackbench
  module Store
    # Opens one of a run directory's files without ever blocking: O_NONBLOCK,
    # so a FIFO put in its place (no reader: the open would wait for good)
    # fails at once, and a FIFO, socket or directory is refused in one line.
    # A character device stays allowed (/dev/full or /dev/null linked in
    # place, as tests of a full disk do).
    module RegularFile
      ALLOWED = %w[file characterSpecial].freeze

      module_function

      # Yields the open File (as File.open does) and returns the block's value.
      def open(path, flags, perm = 0o644, &block)
        refuse!(path, File.stat(path).ftype) if File.exist?(path) && !ALLOWED.include?(File.stat(path).ftype)
        file = File.open(path, flags | File::NONBLOCK, perm)
        type = file.stat.ftype
        unless ALLOWED.include?(type)
          file.close
          refuse!(path, type)
        end
        return file unless block

        begin
          yield file
        ensure
          file.close
        end
      rescue Errno::ENXIO # a FIFO appeared between the check and the open
        refuse!(path, "fifo")
      end

      def refuse!(path, type)
        raise Error, "#{path} is not a regular file (#{type}); a run directory holds regular files only: " \
                     "remove it (or restore the file) and run again"
      end
    end
  end
end
