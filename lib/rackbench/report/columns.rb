# frozen_string_literal: true

module Rackbench
  module Report
    # Rows printed as left-aligned columns two spaces apart, with a rule
    # under the header row (the terminal table and the verdict grid).
    # Left-aligned: a cell's marks (~ ? !N) follow its figures, so
    # right-aligning would shift the figures of marked cells.
    module Columns
      module_function

      def print(io, rows)
        widths = rows.transpose.map { |col| col.map(&:length).max }
        rows.each_with_index do |row, i|
          io.puts row.each_with_index.map { |text, j| text.ljust(widths[j]) }.join("  ").rstrip
          io.puts widths.map { |w| "-" * w }.join("  ") if i.zero?
        end
      end
    end
  end
end
