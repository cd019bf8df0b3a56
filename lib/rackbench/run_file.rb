# frozen_string_literal: true

require_relative "error"

module Rackbench
  # How rackbench opens a file it writes in a run directory (the .jsonl
  # files, the lock, meta.json's temporary copy, logs/ and what child
  # processes write there, tls/, generated configs): never through a
  # symbolic link (O_NOFOLLOW: a link put where a run file belongs would
  # have rackbench truncate or append to whatever it leads to, any file the
  # user can write), and never blocking (O_NONBLOCK: a FIFO with no reader
  # fails at once instead of waiting for good). A link, FIFO, socket or
  # directory in a run file's place is refused in one line; a character
  # device at the file's own path stays allowed (the fault suite's full
  # disk is a /dev/full node made with mknod there).
  #
  # A leaf: process_control, load, store and tls.rb all write run files.
  module RunFile
    ALLOWED = %w[file characterSpecial].freeze
    APPEND = File::WRONLY | File::APPEND | File::CREAT
    CREATE = File::WRONLY | File::CREAT | File::EXCL

    module_function

    # Opens path with flags (plus O_NOFOLLOW and O_NONBLOCK); yields the
    # File and returns the block's value, or returns the File without one.
    def open(path, flags = APPEND, perm = 0o644)
      file = open_file(path, flags, perm)
      return file unless block_given?

      begin
        yield file
      ensure
        file.close
      end
    end

    # Writes text as a new file at path: whatever was there is removed
    # first (a link is removed, not followed; a hard link to another file
    # loses this name and keeps its text), and the file is created
    # exclusively, with perm from its first byte.
    def replace(path, text, perm = 0o644)
      remove(path)
      RunFile.open(path, CREATE, perm) { |f| f.write(text) }
    end

    def append(path, text)
      RunFile.open(path) { |f| f.write(text) }
    end

    # The redirect Process.spawn takes for a child's output (out: ...):
    # appended to, created if missing, never through a link.
    def spawn_target(path)
      check!(path)
      [path, APPEND | File::NOFOLLOW, 0o644]
    end

    # Refuses path (if it exists) unless its own type, a link not followed,
    # is one of types.
    def check!(path, types = ALLOWED)
      type = File.lstat(path).ftype
      refuse_link!(path) if type == "link"
      refuse!(path, type) unless types.include?(type)
    rescue Errno::ENOENT
      nil
    end

    def remove(path)
      File.unlink(path)
    rescue Errno::ENOENT
      nil
    end

    def refuse_link!(path)
      raise Error, "#{path} is a symbolic link; rackbench writes no run file through a link (it would overwrite " \
                   "what the link leads to): remove it and run again"
    end

    def refuse!(path, type)
      raise Error, "#{path} is not a regular file (#{type}); a run directory holds regular files only: " \
                   "remove it (or restore the file) and run again"
    end

    def open_file(path, flags, perm)
      check!(path)
      file = File.open(path, flags | File::NOFOLLOW | File::NONBLOCK, perm)
      type = file.stat.ftype
      return file if ALLOWED.include?(type)

      file.close
      refuse!(path, type)
    rescue Errno::ELOOP # a link appeared between the check and the open
      refuse_link!(path)
    rescue Errno::ENXIO # a FIFO appeared between the check and the open
      refuse!(path, "fifo")
    end
    private_class_method :open_file
  end
end
