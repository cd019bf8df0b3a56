# frozen_string_literal: true

require "etc"
require "open3"
require_relative "../error"

module Rackbench
  module ProcessControl
    # --aslr off: the server's processes start with address-space layout
    # randomisation off, so every boot lays out its heap, stacks and shared
    # libraries at the same addresses.
    #
    # Why: a fresh process draws its own memory layout, and a layout can
    # move a CPU-bound figure by several percent (Mytkowicz et al., ASPLOS
    # 2009); part of the boot-to-boot variance of a figure is that draw.
    # The price is a bias: one fixed layout may favour or hurt one setup,
    # and every boot then repeats it (bench/aslr.rb measures both on this
    # machine, so the choice is stated with its figures).
    #
    # Method: a server starts as `setarch ARCH -R PROGRAM ...` (util-linux):
    # setarch sets the ADDR_NO_RANDOMIZE personality of its own process and
    # then execs PROGRAM in it, so the pid rackbench reaps is the program's;
    # the personality survives exec and fork, so Bundler's fresh Ruby, the
    # workers a server forks and Passenger's spawned apps inherit it. Where
    # the kernel or a container's seccomp refuses the personality, setarch
    # fails: checked once before anything boots (usable!).
    module Layout
      SETARCH = "setarch"

      module_function

      # argv run with randomisation off (fixed: true), or argv as it is.
      def wrap(argv, fixed)
        return argv unless fixed

        [SETARCH, Etc.uname[:machine], "-R", *argv]
      end

      # nil when setarch can turn randomisation off here, else why not (one line).
      def problem
        out, status = Open3.capture2e(*wrap(["true"], true))
        return nil if status.success?

        "setarch cannot turn address randomisation off here (#{out.lines.first.to_s.strip})"
      rescue SystemCallError => e
        "setarch cannot run here (#{e.message}); it is part of util-linux"
      end

      def usable!
        why = problem or return
        raise UsageError, "--aslr off: #{why}; drop --aslr off"
      end
    end
  end
end
