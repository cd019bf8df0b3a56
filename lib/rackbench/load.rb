# frozen_string_literal: true

require_relative "load/registry"

module Rackbench
  # Load engines: each drives one load generator and returns a Load::Result.
  #
  # Every engine answers the same contract (test/support/engine_contract.rb):
  #   #name        -> "wrk"
  #   #available?  -> true when its program can be run
  #   #version     -> "4.1.0", nil when missing
  #   #command(url:, concurrency:, duration:, threads: nil, timeout: 30) -> argv
  #   #run(url:, concurrency:, duration:, log_path:, threads: nil, timeout: 30)
  #                -> Load::Result; raises Rackbench::Error with one line
  # Open-loop engines ("wrk-open") take rate: (requests per second) instead
  # of concurrency: and return loop "open"; see Load::WrkOpenLoop.
  #
  # Each engine's file registers it (Load.register: its process name, loop
  # and scenario support, read by Config and the sampler); every file of
  # load/ is loaded here.
  module Load
  end
end

Dir[File.join(__dir__, "load", "*.rb")].sort.each { |file| require file }
