# frozen_string_literal: true

require_relative "../error"
require_relative "regular_file"

module Rackbench
  module Store
    # One writer per run directory: an advisory lock (flock(2), exclusive,
    # non-blocking) on DIR/.rackbench.lock, held by run, --resume, capacity
    # and tune for as long as they write. The file says who holds it (pid and
    # command line) so a refused writer can name the holder. The kernel drops
    # the lock when the holder exits, however it exits (SIGKILL included), so a
    # stale lock file never blocks a later run. The file is opened through
    # RegularFile (Rackbench::RunFile): a link in its place is refused, never
    # truncated and written through.
    class Lock
      FILE = ".rackbench.lock"

      def self.acquire(dir, command)
        new(dir).tap { |lock| lock.acquire(command) }
      end

      # Why dir cannot be written now (another live writer holds its lock),
      # or nil. Checks without taking the lock for longer than the check.
      def self.busy(dir)
        path = File.join(dir, FILE)
        return nil unless File.file?(path)

        File.open(path, File::RDONLY | File::NOFOLLOW | File::NONBLOCK) do |f| # a link: ELOOP, not busy (#acquire refuses it)
          return nil if f.flock(File::LOCK_SH | File::LOCK_NB).tap { f.flock(File::LOCK_UN) }

          refusal(dir, f.read)
        end
      rescue SystemCallError
        nil
      end

      def self.refusal(dir, text)
        holder = text.to_s.lines.map(&:strip).reject(&:empty?)
        "#{dir} is being written by another rackbench (pid #{holder[0] || '?'}: #{holder[1] || 'unknown command'}); " \
          "wait for it to finish, or choose another --out"
      end

      def initialize(dir)
        @path = File.join(dir, FILE)
      end

      def acquire(command)
        @file = RegularFile.open(@path, File::RDWR | File::CREAT, 0o644)
        unless @file.flock(File::LOCK_EX | File::LOCK_NB)
          text = @file.read
          @file.close
          @file = nil
          raise Error, self.class.refusal(File.dirname(@path), text)
        end
        @file.truncate(0)
        @file.write("#{Process.pid}\n#{command}\n")
        @file.flush
        self
      end

      def release
        @file&.flock(File::LOCK_UN)
        @file&.close
        @file = nil
      end
    end
  end
end
