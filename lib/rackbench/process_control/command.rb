# frozen_string_literal: true

require "tempfile"
require_relative "child"

module Rackbench
  module ProcessControl
    # A short command run to completion through Child (its own process
    # group, stopped and reaped at its deadline), for what rackbench asks of
    # other tools (git): its output and whether it exited 0.
    module Command
      Result = Struct.new(:output, :ok, keyword_init: true)

      module_function

      # argv: the command; chdir: where it runs; timeout: seconds before it is stopped.
      def run(argv, chdir: nil, timeout: 60, env: {})
        Tempfile.create("rackbench-command") do |file|
          child = Child.spawn(argv, env: env, chdir: chdir, log_path: file.path)
          finished = child.wait(timeout)
          status = child.stop("TERM", timeout: 2)
          output = File.read(file.path).scrub.strip
          ok = finished && status.is_a?(Process::Status) && status.success?
          Result.new(output: finished ? output : "#{argv.first} did not finish within #{timeout} s", ok: ok)
        end
      end
    end
  end
end
