# frozen_string_literal: true

require_relative "params"
require_relative "response"

module Rackbench
  module Workload
    module Arena
      # GET /pause/:seconds — sleeps, then answers {"slept": seconds}. Models
      # time spent waiting (database, API) that releases the GVL: it shows
      # how many requests a server overlaps, not how fast it computes.
      # Seconds are 0..60 in plain decimal notation.
      #
      # It tells the server its wait is IO, where the server asks: Puma >= 8
      # puts env["puma.mark_as_io_bound"] in the env, and a request marked so
      # stops counting against Puma's threads up to its max_io_threads
      # ("puma x2:5 io:4"). With max_io_threads 0, Puma's default, marking
      # changes nothing (its thread pool's spawn rule is the same).
      module Pause
        RANGE = (0.0..60.0).freeze
        IO_BOUND = "puma.mark_as_io_bound"

        module_function

        def call(env, raw)
          seconds = parse(raw)
          env[IO_BOUND]&.call if seconds.positive?
          nap(seconds)
          Response.json({ slept: seconds })
        end

        def parse(raw)
          Params.seconds(raw, RANGE, "seconds")
        end

        # The one place the arena sleeps (tests stub it).
        def nap(seconds)
          sleep(seconds) if seconds.positive?
        end
      end
    end
  end
end
