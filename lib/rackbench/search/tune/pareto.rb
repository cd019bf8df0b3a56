# frozen_string_literal: true

module Rackbench
  module Search
    class Tune
      # Throughput against memory footprint: a candidate is on the Pareto
      # front when no other candidate has both a higher throughput and a
      # lower footprint (strictly, on both). Candidates missing either
      # figure are left off the front (nil).
      module Pareto
        module_function

        # rows: hashes with "rps" and "footprint_mb"; returns copies with
        # "pareto" => true/false (nil when a figure is missing).
        def mark(rows)
          known = rows.select { |r| measured?(r) }
          rows.map do |row|
            front = measured?(row) ? known.none? { |o| dominates?(o, row) } : nil
            row.merge("pareto" => front)
          end
        end

        def dominates?(other, row)
          other["rps"] > row["rps"] && other["footprint_mb"] < row["footprint_mb"]
        end

        def measured?(row)
          row["rps"].is_a?(Numeric) && row["footprint_mb"].is_a?(Numeric)
        end
      end
    end
  end
end
