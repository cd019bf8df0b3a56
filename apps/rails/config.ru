# frozen_string_literal: true

# rackbench's built-in Rails workload: `rackbench run --app rails ...`.
require_relative "config/environment"

run Rails.application
Rails.application.load_server
