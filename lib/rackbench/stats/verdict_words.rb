# frozen_string_literal: true

module Rackbench
  module Stats
    class Verdict
      # How a verdict's reasons write their numbers, one place for the
      # verdict, its measures and its split: a share as "75%", a figure to
      # one decimal without a trailing ".0" ("2.5", "16"), a duration in µs
      # below 0.1 ms.
      module Words
        def pct(value)
          "#{value.round}%"
        end

        def fmt(value)
          value.to_f.round(1).then { |v| v == v.round ? v.round.to_s : v.to_s }
        end

        # A duration given in ms: "42 µs" below 0.1 ms (where "0 ms" would
        # say nothing), "9.8 ms" otherwise.
        def ms(value)
          v = value.to_f
          v.positive? && v < 0.1 ? "#{(v * 1000).round} µs" : "#{fmt(v)} ms"
        end
      end
    end
  end
end
