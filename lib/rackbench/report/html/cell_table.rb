# frozen_string_literal: true

require_relative "escape"
require_relative "marks"

module Rackbench
  module Report
    class Html
      # The setups x levels table of one endpoint, each cell's content from
      # the block (given the dataset's cell, nil where it was not measured).
      # Used by the numbers table and the verdict table; needs @data. A cell
      # that is not valid gets the class "invalid" (Marks#cell_class: greyed).
      module CellTable
        include Escape
        include Marks

        def cell_table(endpoint, table_class, td_class: nil)
          levels = @data.cells.levels(endpoint)
          head = "<tr><th scope=\"col\">setup</th>#{levels.map { |c| "<th scope=\"col\">#{h(@data.cells.level_label(c))}</th>" }.join}</tr>"
          rows = @data.cells.setups(endpoint).map do |setup|
            cells = levels.map do |c|
              cell = @data.cells[endpoint, setup, c]
              classes = [td_class, cell_class(cell)].compact
              "<td#{classes.empty? ? '' : " class=\"#{classes.join(' ')}\""}>#{yield(cell)}</td>"
            end
            "<tr><th scope=\"row\">#{h(setup)}</th>#{cells.join}</tr>"
          end
          "<table class=\"#{table_class}\"><thead>#{head}</thead><tbody>#{rows.join}</tbody></table>"
        end
      end
    end
  end
end
