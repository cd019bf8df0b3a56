# frozen_string_literal: true

module Rackbench
  module Stats
    class Verdict
      # How a verdict's reasons write their numbers, one place for the
      # verdict, its measures and its split: a share as "75%", a figure to
      # one decimal without a trailing ".0" ("2.5", "16").
      module Words
        def pct(value)
          "#{value.round}%"
        end

        def fmt(value)
          value.to_f.round(1).then { |v| v == v.round ? v.round.to_s : v.to_s }
        end
      end
    end
  end
end
