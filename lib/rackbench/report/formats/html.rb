# frozen_string_literal: true

require_relative "../formats"
require_relative "../dataset"
require_relative "../html"

module Rackbench
  module Report
    Formats.register("html", order: 2, help: "one page with charts") do |store, opts|
      Html.new(Dataset.from_store(store, margin: opts[:margin])).render
    end
  end
end
