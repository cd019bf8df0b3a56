# frozen_string_literal: true

require_relative "escape"

module Rackbench
  module Report
    class Html
      # The setups x levels table of one endpoint, each cell's content from
      # the block (given the dataset's cell, nil where it was not measured).
      # Used by the numbers table and the verdict table; needs @data.
      module CellTable
        include Escape

        def cell_table(endpoint, table_class, td_class: nil)
          levels = @data.cells.levels(endpoint)
          td = td_class ? "<td class=\"#{td_class}\">" : "<td>"
          head = "<tr><th scope=\"col\">setup</th>#{levels.map { |c| "<th scope=\"col\">#{h(@data.cells.level_label(c))}</th>" }.join}</tr>"
          rows = @data.cells.setups(endpoint).map do |setup|
            cells = levels.map { |c| "#{td}#{yield(@data.cells[endpoint, setup, c])}</td>" }.join
            "<tr><th scope=\"row\">#{h(setup)}</th>#{cells}</tr>"
          end
          "<table class=\"#{table_class}\"><thead>#{head}</thead><tbody>#{rows.join}</tbody></table>"
        end
      end
    end
  end
end
