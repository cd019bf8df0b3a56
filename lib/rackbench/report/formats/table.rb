# frozen_string_literal: true

require_relative "../formats"
require_relative "../dataset"
require_relative "../table"

module Rackbench
  module Report
    # Streams: the table's lines go to io as printed.
    Formats.register("table", order: 1, help: "the terminal table", options: %i[why]) do |store, opts, io|
      Table.new(Dataset.from_store(store, margin: opts[:margin]), io: io, why: opts[:why]).render
    end
  end
end
