# frozen_string_literal: true

require_relative "../formats"
require_relative "../html"

Rackbench::Report::Formats.register_dataset("html", Rackbench::Report::Html, order: 2, stream: true, help: "one page with charts")
