# frozen_string_literal: true

require "csv"

module Rackbench
  module Report
    # CSV text a spreadsheet cannot run. A cell whose text starts with =, +,
    # -, @, a tab or a carriage return is read by Excel, LibreOffice and
    # Google Sheets as a formula (a setup label or endpoint of a hand-edited
    # run: =HYPERLINK(...), +cmd|...); such text is prefixed with a single
    # quote, as OWASP's "CSV Injection" advises. Numbers are not text and
    # stay as they are (-5 is a number); so does text that is a plain number.
    module CsvCell
      FORMULA = /\A[=+\-@\t\r]/.freeze
      NUMBER = /\A[+-]?\d+(\.\d+)?([eE][+-]?\d+)?\z/.freeze

      module_function

      def safe(value)
        return value unless value.is_a?(String) && value.match?(FORMULA) && !value.match?(NUMBER)

        "'#{value}"
      end

      # CSV.generate with every cell passed through #safe.
      def generate(&block)
        CSV.generate(write_converters: [method(:safe).to_proc], &block)
      end
    end
  end
end
