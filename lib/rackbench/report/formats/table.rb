# frozen_string_literal: true

require_relative "../formats"
require_relative "../table"
require_relative "../../stats/margin"
require_relative "../../store/packed_trials"

module Rackbench
  module Report
    # Streams: the table's lines go to io as printed.
    Formats.register("table", order: 1, help: "the terminal table", options: %i[why]) do |store, opts, io|
      Table.new(Store::PackedTrials.read(store), setups: store.setups, io: io, margin: Stats::Margin.of(opts[:margin], store.meta),
                              why: opts[:why], run_dir: store.path, split: store.meta.dig("config", "probe") == true,
                              config: store.meta["config"]).render
    end
  end
end
