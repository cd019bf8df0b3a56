# frozen_string_literal: true

require_relative "../run_file"

module Rackbench
  module Store
    # The run directory's files are opened through Rackbench::RunFile (a
    # leaf, since process_control and load write run files too): never
    # through a symbolic link, never blocking on a FIFO, a FIFO, socket or
    # directory refused in one line, a character device at the file's own
    # path allowed.
    RegularFile = RunFile
  end
end
