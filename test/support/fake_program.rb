# frozen_string_literal: true

require "tmpdir"

# A stand-in for a load program (wrk, ab, siege) in unit tests: a shell
# script with the given body, named like the program, in a temporary
# directory removed afterwards.
module FakeProgram
  # Yields the script's path and its directory (room for the run's log).
  def with_fake_program(name, body)
    Dir.mktmpdir do |dir|
      path = File.join(dir, name)
      File.write(path, "#!/bin/sh\n#{body}\n")
      File.chmod(0o755, path)
      yield path, dir
    end
  end
end
