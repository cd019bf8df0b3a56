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
      module Pause
        RANGE = (0.0..60.0).freeze

        module_function

        def call(_env, raw)
          seconds = parse(raw)
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
