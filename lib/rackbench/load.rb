# frozen_string_literal: true

require_relative "error"
require_relative "suggest"
require_relative "load/result"
require_relative "load/wrk"
require_relative "load/ab"
require_relative "load/siege"
require_relative "load/wrk_open_loop"
require_relative "load/fake"

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
  module Load
    ENGINES = { "wrk" => -> { Wrk.new }, "wrk-open" => -> { WrkOpenLoop.new }, "ab" => -> { Ab.new },
                "siege" => -> { Siege.new }, "siege-close" => -> { Siege.new(keepalive: false) },
                "fake" => -> { Fake.new } }.freeze

    module_function

    def names
      ENGINES.keys
    end

    def engine(name)
      factory = ENGINES[name.to_s]
      return factory.call if factory

      raise UsageError, "unknown load engine #{name.to_s.inspect}#{Suggest.did_you_mean(name, names)}; " \
                        "accepted: #{names.join(', ')}"
    end
  end
end
