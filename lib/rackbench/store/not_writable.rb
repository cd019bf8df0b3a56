# frozen_string_literal: true

require "etc"
require_relative "../error"

module Rackbench
  module Store
    # A run directory this user cannot write: another user's (a run root
    # made, resumed by a user), or on a read-only disk. Said in one line
    # naming this user and the run's owner, never a crash (exit 70).
    module NotWritable
      ERRORS = [Errno::EACCES, Errno::EPERM, Errno::EROFS].freeze

      module_function

      def error(path, cause)
        owner = name(File.stat(path).uid)
        Error.new("#{path} is not writable by this user (#{name(Process.euid)}; the run belongs to #{owner}): " \
                  "#{Error.reason(cause)}; resume it as #{owner}, or copy it (cp -r) and resume the copy")
      end

      def name(uid)
        Etc.getpwuid(uid)&.name || uid.to_s
      rescue ArgumentError # no passwd entry (a container's numeric user)
        uid.to_s
      end
    end
  end
end
