# frozen_string_literal: true

require_relative "boot"

require "rails"
require "active_record/railtie"
require "action_controller/railtie"
require "action_view/railtie"

# The arena's data, parameter checks and upstream client, so both apps do the
# same work and differ only by the framework around it.
%w[catalog fibonacci network_io pause server_info upstream_client].each do |file|
  require_relative "../../arena/#{file}"
end

module RackbenchRails
  # A minimal production Rails app: seed 000's BenchmarksController actions
  # (no database), and seed 001's articles page (Active Record on SQLite,
  # db/production.sqlite3, made by bin/setup); no asset pipeline, logs to
  # stdout at warn.
  class Application < Rails::Application
    config.load_defaults 7.2
    config.root = File.expand_path("..", __dir__)
    config.eager_load = true
    config.enable_reloading = false
    config.consider_all_requests_local = false
    config.action_controller.perform_caching = true
    config.public_file_server.enabled = false
    config.require_master_key = false
    config.secret_key_base = ENV.fetch("SECRET_KEY_BASE") do
      raise "SECRET_KEY_BASE is not set (rackbench sets one when it starts this app)"
    end
    config.logger = ActiveSupport::TaggedLogging.new(ActiveSupport::Logger.new($stdout))
    config.log_level = :warn
    config.active_support.report_deprecations = false
    # Verification knows this app by this header and checks its content as
    # it checks the arena's (rackbench/verify.rb).
    config.action_dispatch.default_headers["x-rackbench-workload"] = "rails"
  end
end
