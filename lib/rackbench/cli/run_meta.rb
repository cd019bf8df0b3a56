# frozen_string_literal: true

require_relative "../plan"
require_relative "../plan/config"
require_relative "../server"
require_relative "../workload/app"
require_relative "../runner"
require_relative "../runtime/jruby"
require_relative "jruby_check"

module Rackbench
  module CLI
    # What a new run's meta.json says of its plan before the first boot:
    # the plan and its settings, the engine, each server's version, the
    # app, each setup's server config as its first boot renders it, and the
    # JRuby facts. (--resume adds its own lines: RunResume.)
    module RunMeta
      def self.for(plan, engine, suite:, env:)
        { "suite" => suite, "plan" => plan.to_h, "config" => Config.dump(plan.config),
          "engine" => { "name" => engine.name, "version" => engine.version },
          "servers" => plan.setups.map(&:server).uniq.to_h { |k| [k, server_version(k, plan.config)] },
          "app" => Workload::App.resolve(plan.config[:app]).to_h,
          "server_configs" => server_configs(plan) }.merge(JrubyCheck.meta(plan.setups, runtime: Runtime::Jruby.default(env)))
      end

      # Each setup's command line and generated config files as they will be
      # rendered for its first round's boot (logs/SLUG-r1; round N boots in
      # SLUG-rN), the port, chosen at boot, shown as PORT; setups.jsonl has
      # the exact ones of every boot.
      def self.server_configs(plan)
        return {} if plan.external?

        app = Workload::App.resolve(plan.config[:app])
        plan.setups.to_h do |setup|
          adapter = Server.adapter(setup.server, app: app, runtime: setup.runtime)
          dir = File.join("RUN_DIR", "logs", "#{Runner::Measurement.slug(setup.label)}-r1")
          [setup.label, { "argv" => adapter.argv(setup, app: app.config_ru, port: "PORT", dir: dir),
                          "files" => adapter.files(setup, port: "PORT", dir: dir), "env" => adapter.env(setup) }]
        end
      end

      def self.server_version(key, config)
        key == Plan::EXTERNAL_SERVER ? nil : Server.adapter(key, app: Workload::App.resolve(config[:app])).version
      end
    end
  end
end
