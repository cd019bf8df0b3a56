# frozen_string_literal: true

require_relative "../formats"
require_relative "../json_doc"

Rackbench::Report::Formats.register_dataset("json", Rackbench::Report::JsonDoc, order: 5, help: "schema rackbench.report/1, docs/report-json.md")
