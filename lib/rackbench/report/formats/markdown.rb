# frozen_string_literal: true

require_relative "../formats"
require_relative "../dataset"
require_relative "../markdown"

module Rackbench
  module Report
    Formats.register("md", order: 3, aliases: ["markdown"], help: "Markdown") do |store, opts|
      Markdown.new(Dataset.from_store(store, margin: opts[:margin])).render
    end
  end
end
