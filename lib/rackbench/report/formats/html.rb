# frozen_string_literal: true

require_relative "../formats"
require_relative "../dataset"
require_relative "../html"

module Rackbench
  module Report
    # The page, streamed; its capacity rows read through the same store.
    # run, capacity and tune write it as report.html (Formats.save).
    Formats.register("html", order: 2, help: "one page with charts") do |store, opts, io|
      Html.new(Dataset.from_store(store, margin: opts[:margin]), capacity: store.capacity).write(io)
    end
  end
end
