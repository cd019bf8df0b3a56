# frozen_string_literal: true

# rackbench as a library: `require "rackbench"` loads every stage of the
# pipeline; each file under lib/rackbench/ can also be required alone.
# docs/architecture.md maps the stages; the command line is Rackbench::CLI.
#
#   plan      Config, PlanFile, Setup, Scenario -> Plan (the trials to run)
#   runner    boot (server/, process_control/) -> verify -> warm up -> load/ -> sampling/ -> store/
#   store     the run directory (Store::RunDir), appended as results exist
#   stats     summaries, intervals, comparisons of stored trials
#   search    capacity and tune: levels chosen from the ones before
#   report    listeners while running; renderers from a run directory
#
#   store = Rackbench::Store::RunDir.open("rackbench-runs/20250101-120000")
#   Rackbench::Report::Table.new(Rackbench::Report::Dataset.from_store(store), io: $stdout).render
require_relative "rackbench/version"
require_relative "rackbench/error"
require_relative "rackbench/plan"
require_relative "rackbench/plan/file"
require_relative "rackbench/server"
require_relative "rackbench/load"
require_relative "rackbench/runner"
require_relative "rackbench/store/run_dir"
require_relative "rackbench/stats/summary"
require_relative "rackbench/stats/compare"
require_relative "rackbench/search/capacity"
require_relative "rackbench/search/tune"
require_relative "rackbench/report/table"
require_relative "rackbench/report/html"
require_relative "rackbench/cli"
