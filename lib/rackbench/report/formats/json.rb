# frozen_string_literal: true

require_relative "../formats"
require_relative "../dataset"
require_relative "../json_doc"

module Rackbench
  module Report
    Formats.register("json", order: 5, help: "schema rackbench.report/1, docs/report-json.md") do |store, opts|
      JsonDoc.new(Dataset.from_store(store, margin: opts[:margin])).render
    end
  end
end
