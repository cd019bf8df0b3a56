# frozen_string_literal: true

require_relative "escape"
require_relative "../quiet_notes"
require_relative "../validity_notes"

module Rackbench
  module Report
    class Html
      # The terminal's marks on a cell, in HTML: "~" measured under foreign
      # load (QuietNotes), "?" not valid (ValidityNotes, Stats::Validity),
      # each with its reason as the title (hover) and a class the CSS colours.
      module Marks
        include Escape

        FOREIGN = "measured under foreign load: other processes took CPU from its trials (see Warnings)"

        def marks(cell)
          out = +""
          check = ValidityNotes.check(cell)
          out << " <span class=\"mark invalid\" title=\"#{h(check.note)}\">?</span>" unless check.valid?
          out << " <span class=\"mark foreign\" title=\"#{h(FOREIGN)}\">~</span>" if QuietNotes.foreign_cell?(cell)
          out
        end

        # The class a cell's <td> takes: "invalid" greys it.
        def cell_class(cell)
          cell && !ValidityNotes.check(cell).valid? ? "invalid" : nil
        end
      end
    end
  end
end
