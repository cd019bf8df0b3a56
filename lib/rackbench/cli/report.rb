# frozen_string_literal: true

require_relative "command"
require_relative "../store/run_dir"
require_relative "../report/table"

module Rackbench
  module CLI
    # rackbench report RUN_DIR: re-render a stored run from its directory alone.
    class Report < Command
      def call(argv)
        parser = OptionParser.new("Usage: rackbench report RUN_DIR")
        parse!(parser, argv)
        path = argv.shift or raise UsageError, "give the run directory to render: rackbench report RUN_DIR"
        store = Store::RunDir.open(path)
        Rackbench::Report::Table.new(store.trials, setups: store.setups, io: @out).render
        0
      end
    end
  end
end
