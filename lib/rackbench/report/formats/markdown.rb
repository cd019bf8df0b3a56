# frozen_string_literal: true

require_relative "../formats"
require_relative "../markdown"

Rackbench::Report::Formats.register_dataset("md", Rackbench::Report::Markdown, order: 3, aliases: ["markdown"], help: "Markdown")
