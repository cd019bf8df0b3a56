# frozen_string_literal: true

module Rackbench
  module Report
    # How numbers are written for people: 3 significant figures, units kept.
    module NumberFormat
      module_function

      def rps(value)
        return "-" if value.nil?

        value >= 100 ? value.round.to_s : format("%.1f", value)
      end

      # "1 error", "3 errors": a count with its noun (plural: noun + "s" unless given).
      def count(value, noun, plural = "#{noun}s")
        "#{value} #{value == 1 ? noun : plural}"
      end

      def ms(value)
        return "-" if value.nil?
        return format("%.2f s", value / 1000.0) if value >= 1000

        value >= 10 ? format("%.0f ms", value) : format("%.2f ms", value)
      end
    end
  end
end
