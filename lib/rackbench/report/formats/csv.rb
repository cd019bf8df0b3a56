# frozen_string_literal: true

require_relative "../formats"
require_relative "../dataset"
require_relative "../csv_tidy"
require_relative "../csv_pivot"

module Rackbench
  module Report
    # Tidy (one row per trial), or with --pivot the seed studies' pivots.
    Formats.register("csv", order: 4, help: "CSV", options: %i[pivot]) do |store, opts|
      dataset = Dataset.from_store(store, margin: opts[:margin])
      opts[:pivot] ? CsvPivot.new(dataset, by: opts[:pivot]).render : CsvTidy.new(dataset).render
    end
  end
end
