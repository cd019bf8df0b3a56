# frozen_string_literal: true

# The rackbench arena: the built-in benchmark app, run by any Rack server
# (`puma config.ru`, `unicorn config.ru`, `thin -R config.ru start`, …).
# Loads only the files beside it — no Bundler, no rest of rackbench.
# Environment: RACKBENCH_UPSTREAM_URL (the upstream stub, for /network-io*),
# RACKBENCH_SERVER (the name /server reports), RACKBENCH_PROBE_DIR (Probe: requests, time and GC per process).
require_relative "app"
require_relative "probe"

run Rackbench::Workload::Arena::Probe.wrap(Rackbench::Workload::Arena::App.new)
