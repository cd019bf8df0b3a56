# frozen_string_literal: true

require_relative "../periodic"
require_relative "../run_file"
require_relative "../error"

module Rackbench
  module ProcessControl
    # Keeps a log that a child process appends to under a size limit, keeping
    # its head and its tail: a server that logs every request (or loops
    # printing an error) can write hundreds of MB in seconds, and the run
    # directory is something a team commits.
    #
    # Method: a thread (Periodic) looks at the file's size every `interval`
    # (0.5 s, monotonic clock). Over `limit`, it reads the last `tail` bytes,
    # truncates the file to its first `head` bytes, and appends a marker line
    # saying how much was cut, then the saved tail. The child opened the log
    # with O_APPEND (Child.spawn), so its next write lands at the new end;
    # our append is O_APPEND too, so the two never overwrite each other.
    # The file is read, cut and appended through one descriptor opened by
    # RunFile: a link at a log's name is never cut through.
    # Limits: between two looks the file can grow by whatever the child
    # writes in one interval; lines written between reading the tail and
    # truncating are lost with the middle; the cut can split a line.
    class LogCap
      LIMIT = 8 * 1024 * 1024
      HEAD = 1024 * 1024
      TAIL = 1024 * 1024
      INTERVAL = 0.5

      attr_reader :cut_bytes

      def initialize(paths, limit: LIMIT, head: HEAD, tail: TAIL, interval: INTERVAL)
        raise ArgumentError, "head + tail (#{head + tail}) must be below the limit (#{limit})" unless head + tail < limit

        @paths = Array(paths)
        @limit = limit
        @head = head
        @tail = tail
        @interval = interval
        @cut_bytes = 0
      end

      def start
        @looks = Periodic.new(@interval) { check }.start
        self
      end

      # Stops the thread after one last look.
      def stop
        @looks&.stop
        check
        self
      end

      # One look at every file (the thread calls this; public for tests).
      def check
        @paths.each { |path| cut(path) }
      end

      private

      def cut(path)
        size = File.size?(path) or return
        return if size <= @limit

        RunFile.open(path, File::RDWR | File::APPEND) do |f|
          size = f.size
          next if size <= @limit

          tail = f.pread(@tail, size - @tail)
          f.truncate(@head)
          dropped = size - @head - tail.bytesize
          @cut_bytes += dropped
          f.write("\n[rackbench: #{dropped} bytes of this log cut here to keep it under #{@limit / 1024 / 1024} MB " \
                  "(#{@cut_bytes} bytes in all); its first and last MB are kept]\n", tail)
        end
      rescue SystemCallError, IOError, Error
        nil # the file went (the server directory was removed), or is a link: nothing to cap
      end
    end
  end
end
